import type { CaseResult } from "./drive";
import type { LoadReport } from "./load";

export interface CaseReport {
  name: string;
  path: string;
  page: number;
  perPage: number;
  depth: "first" | "middle" | "last" | "304";
  api: CaseResult;
  floor: CaseResult;
  /** api / floor requests per second. */
  throughputRatio: number;
  /** api / floor p99. */
  p99Ratio: number;
}

export interface SizeReport {
  n: number;
  load: LoadReport;
  apiPeakRssMb: number;
  floorPeakRssMb: number;
  cases: CaseReport[];
}

export interface BenchReport {
  startedAt: string;
  finishedAt: string;
  mode: "quick" | "full";
  machine: { cpus: number; node: string; loadBefore: string; loadAfter: string };
  settings: { connections: number; warmupSeconds: number; seconds: number; poolMax: number };
  sizes: SizeReport[];
}

const fmt = (value: number, digits = 0) =>
  value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });

export function markdownTable(report: BenchReport): string {
  const lines = [
    `${report.mode} run, ${report.startedAt}; ${report.machine.cpus} CPUs, Node ${report.machine.node}; ` +
      `${report.settings.connections} connections, ${report.settings.warmupSeconds} s warm-up + ` +
      `${report.settings.seconds} s per case, pool ${report.settings.poolMax} per server; ` +
      `load average before: ${report.machine.loadBefore}, after: ${report.machine.loadAfter}.`,
    "",
    "| N | case | api req/s | floor req/s | api/floor | api p50 ms | api p99 ms | floor p99 ms | non-2xx api/floor |",
    "|---:|---|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const size of report.sizes) {
    for (const c of size.cases) {
      lines.push(
        `| ${fmt(size.n)} | ${c.name} | ${fmt(c.api.requestsPerSecond)} | ${fmt(c.floor.requestsPerSecond)} | ` +
          `${fmt(c.throughputRatio, 2)} | ${fmt(c.api.p50Ms)} | ${fmt(c.api.p99Ms)} | ${fmt(c.floor.p99Ms)} | ` +
          `${c.api.bad}/${c.floor.bad} |`,
      );
    }
  }
  lines.push(
    "",
    "| N | rows per table | load of the large team's events (s) | its guides (s) | load of all (s) | api peak RSS MB | floor peak RSS MB |",
    "|---:|---:|---:|---:|---:|---:|---:|",
  );
  for (const size of report.sizes) {
    lines.push(
      `| ${fmt(size.n)} | ${fmt(size.load.rowsPerTable)} | ${fmt(size.load.largeTeamEventsSeconds, 1)} | ` +
        `${fmt(size.load.largeTeamGuidesSeconds, 1)} | ` +
        `${fmt(size.load.totalSeconds, 1)} | ${fmt(size.apiPeakRssMb)} | ${fmt(size.floorPeakRssMb)} |`,
    );
  }
  return `${lines.join("\n")}\n`;
}
