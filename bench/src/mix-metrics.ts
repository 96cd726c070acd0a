import type { Pool } from "pg";

/** Sums of a Prometheus text exposition by metric name (all label sets added up). */
export type MetricSums = Map<string, number>;

export function parseMetrics(text: string): MetricSums {
  const sums: MetricSums = new Map();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{.*\})?\s+(\S+)/.exec(line);
    if (match === null) continue;
    const value = Number(match[2]);
    if (!Number.isFinite(value)) continue;
    const name = match[1] as string;
    sums.set(name, (sums.get(name) ?? 0) + value);
  }
  return sums;
}

/** The api's /metrics (production mode serves it only with METRICS_TOKEN). */
export async function scrapeMetrics(baseUrl: string, token: string): Promise<MetricSums> {
  const response = await fetch(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET /metrics gave ${response.status}: ${text.slice(0, 200)}`);
  return parseMetrics(text);
}

/** Counters that grew between two scrapes, for the names `keep` selects. */
export function metricDeltas(before: MetricSums, after: MetricSums, keep: (name: string) => boolean) {
  const deltas: Record<string, number> = {};
  for (const [name, value] of after) {
    if (keep(name)) deltas[name] = value - (before.get(name) ?? 0);
  }
  return deltas;
}

/** Sum of the deltas whose names end with `suffix` (a metric renamed with a prefix still counts). */
export function deltaEndingWith(deltas: Record<string, number>, suffix: string): number | undefined {
  const matches = Object.entries(deltas).filter(([name]) => name.endsWith(suffix));
  return matches.length === 0 ? undefined : matches.reduce((sum, [, value]) => sum + value, 0);
}

/**
 * PostgreSQL's own counters for the bench database: scans of access_tokens (every token lookup is
 * one, whoever makes it) and transactions. A backend reports them when it goes idle, at most once a
 * second, and what it holds back is reported 10 s after it went idle (PostgreSQL 15's
 * PGSTAT_IDLE_INTERVAL): read them after a pause of at least that long, and a window's counts are exact.
 */
export async function databaseCounters(monitor: Pool): Promise<{ tokenScans: number; transactions: number }> {
  const { rows } = await monitor.query<{ token_scans: number; transactions: number }>(
    `SELECT (SELECT coalesce(seq_scan, 0) + coalesce(idx_scan, 0) FROM pg_stat_user_tables
              WHERE relname = 'access_tokens')::float8 AS token_scans,
            (SELECT xact_commit + xact_rollback FROM pg_stat_database
              WHERE datname = current_database())::float8 AS transactions`,
  );
  const row = rows[0];
  if (row === undefined) throw new Error("no statistics row");
  return { tokenScans: row.token_scans, transactions: row.transactions };
}
