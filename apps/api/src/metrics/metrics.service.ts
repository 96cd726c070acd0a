import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

/** Seconds; from 1 ms (a cached lookup) to 10 s (the statement timeout's order). */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The application's Prometheus registry. One per app instance (not prom-client's global one),
 * so that several apps in one process, as in the tests, keep separate counts.
 */
export class MetricsService {
  readonly registry = new Registry();

  readonly httpRequests = new Counter({
    name: "http_requests_total",
    help: "HTTP requests answered, by method, route template and status code",
    labelNames: ["method", "route", "status"] as const,
    registers: [this.registry],
  });

  readonly httpDuration = new Histogram({
    name: "http_request_duration_seconds",
    help: "Time from receiving a request to finishing its response, by method, route template and status code",
    labelNames: ["method", "route", "status"] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });

  readonly dbQueryDuration = new Histogram({
    name: "db_query_duration_seconds",
    help: "Time of each query sent to PostgreSQL, by outcome",
    labelNames: ["outcome"] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** A counter on this registry (the features' own metrics). */
  counter<L extends string = string>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }

  /** A gauge on this registry that reads its value at each scrape. */
  gauge(name: string, help: string, read: () => number): Gauge {
    return new Gauge({
      name,
      help,
      registers: [this.registry],
      collect() {
        this.set(read());
      },
    });
  }
}
