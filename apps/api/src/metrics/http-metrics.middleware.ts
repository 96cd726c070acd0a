import type { NextFunction, Request, Response } from "express";
import type { MetricsService } from "./metrics.service";
import { routeTemplate } from "./route-template";

const KNOWN_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** Counts and times every response by route template (never the raw URL) and status. */
export function httpMetricsMiddleware(metrics: MetricsService) {
  return (request: Request, response: Response, next: NextFunction) => {
    const start = process.hrtime.bigint();
    response.once("finish", () => {
      const labels = {
        method: KNOWN_METHODS.has(request.method) ? request.method : "OTHER",
        route: routeTemplate(request),
        status: String(response.statusCode),
      };
      metrics.httpRequests.inc(labels);
      metrics.httpDuration.observe(labels, Number(process.hrtime.bigint() - start) / 1e9);
    });
    next();
  };
}
