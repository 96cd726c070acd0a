import { Counter, Gauge } from "prom-client";
import type { RedisConnection } from "../rate-limit/redis.provider";
import type { MetricsService } from "./metrics.service";

/** The rate limiter's Redis, read at scrape time: whether it answers, and the requests served unlimited. */
export function instrumentLimiter(redis: RedisConnection | null, metrics: MetricsService): void {
  new Gauge({
    name: "rate_limit_storage_up",
    help: "1 while the rate limiter's storage answers (always 1 for the in-memory storage), 0 while requests are served without limits",
    registers: [metrics.registry],
    collect() {
      this.set(redis === null || redis.isAnswering ? 1 : 0);
    },
  });
  new Counter({
    name: "rate_limit_storage_failures_total",
    help: "Requests served without a rate limit because Redis did not answer in time",
    registers: [metrics.registry],
    collect() {
      this.reset();
      this.inc(redis?.unlimitedRequests ?? 0);
    },
  });
}
