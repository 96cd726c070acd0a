import type { RedisConnection } from "../redis/redis.provider";
import type { MetricsService } from "./metrics.service";
import { scrapedMetrics } from "./scraped-metrics";

/** The rate limiter's Redis, read at scrape time: whether it answers, and the requests served unlimited. */
export function instrumentLimiter(redis: RedisConnection | null, metrics: MetricsService): void {
  const scraped = scrapedMetrics(metrics.registry);
  scraped.gauge(
    "rate_limit_storage_up",
    "1 while the rate limiter's storage answers (always 1 for the in-memory storage), 0 while requests are served without limits",
    () => (redis === null || redis.isAnswering ? 1 : 0),
  );
  scraped.counter(
    "rate_limit_storage_failures_total",
    "Requests served without a rate limit because Redis did not answer in time",
    () => redis?.unlimitedRequests ?? 0,
  );
}
