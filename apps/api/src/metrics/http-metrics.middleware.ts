import type { NextFunction, Request, Response } from "express";
import type { MetricsService } from "./metrics.service";

/** Requests that matched no route share one label, so random paths cannot grow the series. */
export const UNMATCHED_ROUTE = "unmatched";
const KNOWN_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** Counts and times every response by route template (never the raw URL) and status. */
export function httpMetricsMiddleware(metrics: MetricsService) {
  return (request: Request, response: Response, next: NextFunction) => {
    const start = process.hrtime.bigint();
    response.once("finish", () => {
      const route = request.route?.path;
      const labels = {
        method: KNOWN_METHODS.has(request.method) ? request.method : "OTHER",
        route: typeof route === "string" ? request.baseUrl + route : UNMATCHED_ROUTE,
        status: String(response.statusCode),
      };
      metrics.httpRequests.inc(labels);
      metrics.httpDuration.observe(labels, Number(process.hrtime.bigint() - start) / 1e9);
    });
    next();
  };
}
