import type { Database } from "@community/db";
import type { MetricsService } from "./metrics.service";
import { scrapedMetrics } from "./scraped-metrics";

/**
 * Pool use as gauges read at scrape time, and the latency of every query (timed by the database's
 * own connections, so with tracing on or off). Returns the way to stop timing queries.
 */
export function instrumentDatabase(database: Database, metrics: MetricsService): () => void {
  const { pool } = database;
  const { gauge, counter } = scrapedMetrics(metrics.registry);
  gauge("db_pool_connections", "Connections the pool holds, idle or in use", () => pool.totalCount);
  gauge("db_pool_idle_connections", "Idle connections in the pool", () => pool.idleCount);
  gauge("db_pool_waiting_requests", "Queries waiting for a free connection", () => pool.waitingCount);
  gauge("db_pool_max_connections", "Most connections the pool may open", () => pool.options.max ?? 10);
  gauge(
    "db_circuit_open",
    "1 while the database circuit breaker is open (the database is known to be down and requests are refused at once)",
    () => (database.breaker.state === "open" ? 1 : 0),
  );
  counter(
    "db_circuit_refused_total",
    "Requests refused at once (503) because the database circuit breaker was open",
    () => database.breaker.refusedTotal,
  );
  counter("db_circuit_opened_total", "Times the database circuit breaker opened", () => database.breaker.openedTotal);

  const { replica } = database;
  if (replica !== undefined) {
    gauge(
      "db_replica_circuit_open",
      "1 while the read replica's circuit breaker is open (list pages are then read from the primary)",
      () => (replica.breaker.state === "open" ? 1 : 0),
    );
    counter(
      "db_replica_fallback_reads_total",
      "List reads the primary served because the read replica could not (unreachable, breaker open, recovery conflict)",
      () => replica.fallbacksTotal,
    );
  }

  return database.observeQueries((seconds, failed) =>
    metrics.dbQueryDuration.observe({ outcome: failed ? "error" : "ok" }, seconds),
  );
}
