import { readFileSync } from "node:fs";
import { standalonePool } from "@community/db";
import { createTestDatabase } from "@community/db/testing";
import type { Pool } from "pg";
import { loadBenchData } from "./load";
import type { RunningServer } from "./servers";

/** Linux reports utime/stime in clock ticks of 1/100 s on every platform Node.js supports here. */
const TICK_MS = 10;

/** CPU time (user + system, ms) a process has used so far; 0 once it is gone. */
export function processCpuMs(pid: number): number {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return 0;
  }
  // Fields after the command name (which may hold spaces) start at field 3; utime and stime are 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

/** What one measured window cost: the server's CPU and that of PostgreSQL's backends for the database. */
export interface CpuWindow {
  serverMs: number;
  postgresMs: number;
}

/** Consecutive idle polls, this far apart (ms), that make the database quiet. */
const QUIET_POLLS = 3;
const QUIET_POLL_MS = 50;
/** Longest wait for a quiet database before a window opens anyway. */
const QUIET_TIMEOUT_MS = 120_000;

/**
 * Waits until no backend of the bench database but the monitor's runs a statement, seen
 * QUIET_POLLS times in a row: a server whose turn ended still finishes the requests it had taken
 * (the naive peer's deep OFFSET pages take seconds), and that work would otherwise fall into the
 * next server's window, its PostgreSQL CPU and its throughput. Returns the ms waited.
 */
export async function waitForQuietDatabase(monitor: Pool, excludeApplications: string[] = []): Promise<number> {
  const started = performance.now();
  const sql =
    "SELECT count(*)::int AS busy FROM pg_stat_activity WHERE datname = current_database() " +
    "AND pid <> pg_backend_pid() AND state IS DISTINCT FROM 'idle'" +
    // As the window counts them: a writer that runs beside the load (and autovacuum) is left out.
    (excludeApplications.length === 0
      ? ""
      : " AND backend_type = 'client backend' AND NOT (application_name = ANY($1::text[]))");
  let quiet = 0;
  while (quiet < QUIET_POLLS && performance.now() - started < QUIET_TIMEOUT_MS) {
    const { rows } = await monitor.query<{ busy: number }>(
      sql,
      excludeApplications.length === 0 ? [] : [excludeApplications],
    );
    quiet = rows[0]?.busy === 0 ? quiet + 1 : 0;
    if (quiet < QUIET_POLLS) await new Promise((resolve) => setTimeout(resolve, QUIET_POLL_MS));
  }
  return performance.now() - started;
}

/**
 * Starts a CPU window for `serverPid` and the PostgreSQL backends connected to the bench
 * database (those of the servers' pools; the bench's own monitoring connection excluded), once
 * the database is quiet (waitForQuietDatabase). Only the server under load is then busy during
 * the window, so the backends' CPU is that server's. A pool may
 * have closed its idle connections before the window (pg's default idle timeout is 10 s, shorter
 * than the other servers' turns) and open new ones during it: backends that appear by the end of
 * the window count with all their CPU, since they were born inside it.
 */
export async function startCpuWindow(
  serverPid: number,
  monitor: Pool,
  options: { excludeApplications?: string[] } = {},
): Promise<() => Promise<CpuWindow>> {
  // Excluding applications (a writer beside the load) also leaves out autovacuum: client backends only.
  const exclude = options.excludeApplications ?? [];
  await waitForQuietDatabase(monitor, exclude);
  const sql =
    "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()" +
    (exclude.length === 0 ? "" : " AND backend_type = 'client backend' AND NOT (application_name = ANY($1::text[]))");
  const backends = async () =>
    (await monitor.query<{ pid: number }>(sql, exclude.length === 0 ? [] : [exclude])).rows.map((row) => row.pid);
  const before = new Map((await backends()).map((pid) => [pid, processCpuMs(pid)]));
  const server = processCpuMs(serverPid);
  return async () => {
    const serverMs = processCpuMs(serverPid) - server;
    const pids = new Set([...before.keys(), ...(await backends())]);
    let postgresMs = 0;
    // A backend that ended during the window reads 0: its CPU since the start is lost, never negative.
    for (const pid of pids) postgresMs += Math.max(0, processCpuMs(pid) - (before.get(pid) ?? 0));
    return { serverMs, postgresMs };
  };
}

/** What a CPU bench runs on: its database, a one-connection pool for startCpuWindow, the servers it started. */
export interface CpuBench {
  url: string;
  monitor: Pool;
  /** The bench pushes each server it starts, so that all are stopped at the end. */
  servers: RunningServer[];
}

/** Runs `measure` on a database of its own loaded with `n` bench items; then stops every server and drops it. */
export async function withCpuBench(
  name: string,
  n: number,
  measure: (bench: CpuBench) => Promise<void>,
): Promise<void> {
  const database = await createTestDatabase(name);
  const monitor = standalonePool({ connectionString: database.url, max: 1 });
  const servers: RunningServer[] = [];
  try {
    await loadBenchData(database.url, n);
    await measure({ url: database.url, monitor, servers });
  } finally {
    await monitor.end().catch(() => undefined);
    for (const server of servers) await server.stop();
    await database.drop();
  }
}
