import type { IncomingMessage, ServerResponse } from "node:http";
import type { Counter, Histogram } from "prom-client";
import { routeTemplate } from "../logging/route-template";
import type { MetricsService } from "./metrics.service";

const KNOWN_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

type Labels = "method" | "route" | "status";
type Series = { count: Counter.Internal; duration: Histogram.Internal<Labels> };

/**
 * Counts and times every response by route template (never the raw URL) and status. The series
 * of each (method, route, status) is looked up once and kept: routes are templates and methods a
 * fixed set, so there are few, and a request then costs no label hashing.
 */
export class HttpMetrics {
  private readonly series = new Map<string, Series>();

  constructor(private readonly metrics: MetricsService) {}

  /** Records a finished response that took `elapsed` nanoseconds. */
  record(
    request: IncomingMessage & { route?: { path?: unknown }; baseUrl?: string },
    response: ServerResponse,
    elapsed: bigint,
  ): void {
    const method = KNOWN_METHODS.has(request.method ?? "") ? (request.method as string) : "OTHER";
    const route = routeTemplate(request);
    const status = String(response.statusCode);
    const key = `${method} ${status} ${route}`;
    let series = this.series.get(key);
    if (series === undefined) {
      const labels = { method, route, status };
      series = { count: this.metrics.httpRequests.labels(labels), duration: this.metrics.httpDuration.labels(labels) };
      this.series.set(key, series);
    }
    series.count.inc();
    series.duration.observe(Number(elapsed) / 1e9);
  }
}
