import type { CalendarCaseReport } from "./calendar-cost";
import type { CaseResult } from "./drive";
import type { LoadReport } from "./load";
import type { ServerName } from "./servers";
import type { SyncCostReport } from "./sync-cost";

/** Median and spread (min-max) of one figure over the rounds. */
export interface Spread {
  median: number;
  min: number;
  max: number;
}

export function spreadOf(values: readonly number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  const median =
    sorted.length % 2 === 1
      ? (sorted[middle] as number)
      : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
  return { median, min: sorted[0] ?? Number.NaN, max: sorted.at(-1) ?? Number.NaN };
}

/** One server on one case: every round, and the medians over them. */
export interface ServerCaseReport {
  rounds: CaseResult[];
  requestsPerSecond: Spread;
  p50Ms: Spread;
  p99Ms: Spread;
  serverCpuMsPerRequest: Spread;
  postgresCpuMsPerRequest: Spread;
  /** Failed responses over all rounds. */
  bad: number;
}

/** What every report gives per server, as spreads over the rounds: the rate, the latencies, the CPU per request. */
export function roundSpreads(
  rounds: Array<
    Pick<CaseResult, "requestsPerSecond" | "p50Ms" | "p99Ms" | "serverCpuMsPerRequest" | "postgresCpuMsPerRequest">
  >,
) {
  return {
    requestsPerSecond: spreadOf(rounds.map((r) => r.requestsPerSecond)),
    p50Ms: spreadOf(rounds.map((r) => r.p50Ms)),
    p99Ms: spreadOf(rounds.map((r) => r.p99Ms)),
    serverCpuMsPerRequest: spreadOf(rounds.map((r) => r.serverCpuMsPerRequest)),
    postgresCpuMsPerRequest: spreadOf(rounds.map((r) => r.postgresCpuMsPerRequest)),
  };
}

export function summarize(rounds: CaseResult[]): ServerCaseReport {
  return { rounds, ...roundSpreads(rounds), bad: rounds.reduce((sum, r) => sum + r.bad, 0) };
}

/** The kinds of case `pnpm bench` runs (`--depths=` picks some). */
export const CASE_DEPTHS = [
  "first",
  "middle",
  "last",
  "304",
  "compressed",
  "gzip",
  "filtered",
  "cursor first",
  "cursor last",
] as const;
export type CaseDepth = (typeof CASE_DEPTHS)[number];

export interface CaseReport {
  name: string;
  path: string;
  page: number;
  perPage: number;
  depth: CaseDepth;
  /** The query each server was sent, where it is not page and per_page alone. */
  queries?: Record<ServerName, string>;
  /** Extra request headers of the case (If-None-Match, Accept-Encoding). */
  headers: Record<string, string>;
  servers: Record<ServerName, ServerCaseReport>;
  /** api / floor requests per second, per round (same round, adjacent windows). */
  throughputRatio: Spread;
}

export interface SizeReport {
  n: number;
  /** A sync after 100 changes against a full cursor walk, on the api. */
  sync?: SyncCostReport;
  load: LoadReport;
  peakRssMb: Record<ServerName, number>;
  cases: CaseReport[];
  /** The calendar feed (contract 11.2), the api against the floor. */
  calendar?: CalendarCaseReport[];
}

export interface BenchReport {
  startedAt: string;
  finishedAt: string;
  mode: "quick" | "full";
  machine: { cpus: number; node: string; loadBefore: string; loadAfter: string };
  settings: { connections: number; warmupSeconds: number; seconds: number; rounds: number; poolMax: number };
  sizes: SizeReport[];
}

const fmt = (value: number, digits = 0) =>
  value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
const range = (s: Spread, digits = 0) =>
  s.min === s.max ? fmt(s.median, digits) : `${fmt(s.median, digits)} (${fmt(s.min, digits)}-${fmt(s.max, digits)})`;

export function markdownTable(report: BenchReport): string {
  const lines = [
    `${report.mode} run, ${report.startedAt}; ${report.machine.cpus} CPUs, Node ${report.machine.node}; ` +
      `${report.settings.connections} connections, ${report.settings.rounds} rounds per case (servers interleaved), ` +
      `${report.settings.warmupSeconds} s warm-up + ${report.settings.seconds} s per round; pool ${report.settings.poolMax} per server; ` +
      `load average before: ${report.machine.loadBefore}, after: ${report.machine.loadAfter}.`,
    "",
    "Requests per second and the api/floor ratio: median over the rounds (min-max). CPU: ms of CPU per request,",
    "median over the rounds, of the server process and of PostgreSQL's backends serving it.",
    "",
    "| N | case | api req/s | floor req/s | naive req/s | api/floor | p99 ms api / floor / naive | server CPU ms/req api / floor / naive | PostgreSQL CPU ms/req api / floor / naive | non-2xx api/floor/naive |",
    "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const size of report.sizes) {
    for (const c of size.cases) {
      const { api, floor, naive } = c.servers;
      lines.push(
        `| ${fmt(size.n)} | ${c.name} | ${range(api.requestsPerSecond)} | ${range(floor.requestsPerSecond)} | ` +
          `${range(naive.requestsPerSecond)} | ${range(c.throughputRatio, 2)} | ` +
          `${fmt(api.p99Ms.median)} / ${fmt(floor.p99Ms.median)} / ${fmt(naive.p99Ms.median)} | ` +
          `${fmt(api.serverCpuMsPerRequest.median, 2)} / ${fmt(floor.serverCpuMsPerRequest.median, 2)} / ${fmt(naive.serverCpuMsPerRequest.median, 2)} | ` +
          `${fmt(api.postgresCpuMsPerRequest.median, 2)} / ${fmt(floor.postgresCpuMsPerRequest.median, 2)} / ${fmt(naive.postgresCpuMsPerRequest.median, 2)} | ` +
          `${api.bad}/${floor.bad}/${naive.bad} |`,
      );
    }
  }
  lines.push(
    "",
    "| N | sync after changes: requests / bytes / s | full cursor walk: requests / bytes / s | walk/sync bytes |",
    "|---:|---:|---:|---:|",
  );
  for (const size of report.sizes) {
    if (size.sync === undefined) continue;
    const { sync, walk, changes } = size.sync;
    lines.push(
      `| ${fmt(size.n)} | ${fmt(changes)} changes: ${fmt(sync.requests)} / ${fmt(sync.bytes)} / ${fmt(sync.seconds, 2)} | ` +
        `${fmt(walk.requests)} / ${fmt(walk.bytes)} / ${fmt(walk.seconds, 1)} | ${fmt(walk.bytes / sync.bytes)} |`,
    );
  }
  lines.push(
    "",
    "| N | rows per table | large team's events: validation (s) | then the loader (s) | plain COPY of the same rows (s) | loader/COPY | its guides (s) | load of all (s) | peak RSS MB api / floor / naive |",
    "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  );
  for (const size of report.sizes) {
    const { load } = size;
    lines.push(
      `| ${fmt(size.n)} | ${fmt(load.rowsPerTable)} | ${fmt(load.largeTeamEventsValidationSeconds, 1)} | ` +
        `${fmt(load.largeTeamEventsSeconds, 1)} | ` +
        `${fmt(load.copyFloorEventsSeconds, 1)} | ${fmt(load.largeTeamEventsSeconds / load.copyFloorEventsSeconds, 2)} | ` +
        `${fmt(load.largeTeamGuidesSeconds, 1)} | ${fmt(load.totalSeconds, 1)} | ` +
        `${fmt(size.peakRssMb.api)} / ${fmt(size.peakRssMb.floor)} / ${fmt(size.peakRssMb.naive)} |`,
    );
  }
  return `${lines.join("\n")}\n`;
}
