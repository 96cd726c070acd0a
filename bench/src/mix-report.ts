import { barChartSvg } from "./chart";
import type { MixDriveResult } from "./mix-client";
import type { MixLoadReport } from "./mix-load";
import type { MixSettings, RequestKind } from "./mix-workload";
import type { WriterReport } from "./mix-writer";
import { roundSpreads, type Spread, spreadOf } from "./report";
import { SERVER_NAMES, type ServerName } from "./servers";
import type { CopyCounts, FreshnessSummary } from "./sync-copies";

/** The long-poll copies of one round: what they asked and got, and how fresh they kept. */
export interface SyncCopiesRound {
  copies: number;
  waitSeconds: number;
  counts: CopyCounts;
  requestsPerSecond: number;
  freshness: FreshnessSummary;
}

/** The long-poll copies over the rounds: medians (min-max) of the rounds' figures, sums of the counts. */
export interface SyncCopiesReport {
  copies: number;
  waitSeconds: number;
  requestsPerSecond: Spread;
  freshnessP50Ms: Spread;
  freshnessP99Ms: Spread;
  freshnessMaxMs: Spread;
  requests: number;
  withChanges: number;
  empty: number;
  aborted: number;
  failed: number;
  writes: number;
  missed: number;
}

/** One server's measured round of the mix. */
export interface MixRound extends MixDriveResult {
  round: number;
  /** CPU of the server process per response (ms). */
  serverCpuMsPerRequest: number;
  /** CPU of PostgreSQL's client backends serving it per response (ms), the writer's excluded. */
  postgresCpuMsPerRequest: number;
  /** Scans of access_tokens per response (PostgreSQL's statistics); null when the round did not settle. */
  tokenLookupsPerRequest: number | null;
  /** PostgreSQL transactions per response, the writer's excluded; null when the round did not settle. */
  transactionsPerRequest: number | null;
  /** Highest VmRSS sampled during the round (MB). */
  rssPeakMb: number;
  writes: WriterReport;
  /** The api only: counters of /metrics that moved during the round (caches, tokens, statements, requests). */
  apiMetrics?: Record<string, number>;
  /** The api only: gauges of its caches at the end of the round (bytes held, budgets). */
  apiCacheGauges?: Record<string, number>;
  /** The api only: its list page cache over the round. */
  pageCache?: { hits: number; misses: number; evictions: number; hitRate: number; hitsPerRequest: number };
  /** The api only: statements it timed (db_query_duration_seconds) per response. */
  statementsPerRequest?: number;
  /** The long-poll copies beside the mix (their responses count in the per-response figures, not in the latencies). */
  syncCopies: SyncCopiesRound;
}

export interface MixServerReport {
  rounds: MixRound[];
  requestsPerSecond: Spread;
  p50Ms: Spread;
  p99Ms: Spread;
  serverCpuMsPerRequest: Spread;
  postgresCpuMsPerRequest: Spread;
  tokenLookupsPerRequest: Spread | null;
  transactionsPerRequest: Spread | null;
  statementsPerRequest: Spread | null;
  pageCacheHitRate: Spread | null;
  bytesPerResponse: Spread;
  /** Share of responses that were 304 (median over the rounds). */
  notModifiedShare: Spread;
  responses: number;
  notModified: number;
  /** The mix's responses neither 2xx nor 304, and the copies' failed requests. */
  failed: number;
  /** VmHWM at the end of the run (MB): the process's peak, warm-up included. */
  peakRssMb: number;
  /** null when the run had no long-poll copies. */
  syncCopies: SyncCopiesReport | null;
}

export interface MixReport {
  startedAt: string;
  finishedAt: string;
  mode: "quick" | "full";
  machine: { cpus: number; node: string; loadBefore: string; loadAfter: string; loadDuring: Spread };
  settings: MixSettings;
  workload: {
    requestShares: Record<string, number>;
    perPageShares: Record<string, number>;
    largestTeam: { events: number; guides: number };
    teamsUnder50Events: number;
  };
  data: MixLoadReport;
  servers: Record<ServerName, MixServerReport>;
  /** api / floor per round (adjacent windows of the same round), median and spread. */
  ratios: { throughput: Spread; postgresCpuPerRequest: Spread; serverCpuPerRequest: Spread; p99: Spread };
  summary: string;
}

const spreadOrNull = (values: Array<number | null | undefined>): Spread | null =>
  values.every((v): v is number => typeof v === "number") && values.length > 0 ? spreadOf(values) : null;

export function summarizeServer(rounds: MixRound[], peakRssMb: number): MixServerReport {
  const of = (pick: (r: MixRound) => number) => spreadOf(rounds.map(pick));
  const sum = (pick: (r: MixRound) => number) => rounds.reduce((total, r) => total + pick(r), 0);
  return {
    rounds,
    ...roundSpreads(rounds),
    tokenLookupsPerRequest: spreadOrNull(rounds.map((r) => r.tokenLookupsPerRequest)),
    transactionsPerRequest: spreadOrNull(rounds.map((r) => r.transactionsPerRequest)),
    statementsPerRequest: spreadOrNull(rounds.map((r) => r.statementsPerRequest)),
    pageCacheHitRate: spreadOrNull(rounds.map((r) => r.pageCache?.hitRate)),
    bytesPerResponse: of((r) => r.bytesPerResponse),
    notModifiedShare: of((r) => (r.responses > 0 ? r.notModified / r.responses : 0)),
    responses: sum((r) => r.responses),
    notModified: sum((r) => r.notModified),
    failed: sum((r) => r.failed + r.syncCopies.counts.failed),
    peakRssMb,
    syncCopies: summarizeCopies(rounds),
  };
}

function summarizeCopies(rounds: MixRound[]): SyncCopiesReport | null {
  const first = rounds[0]?.syncCopies;
  if (first === undefined || first.copies === 0) return null;
  const of = (pick: (r: SyncCopiesRound) => number) => spreadOf(rounds.map((r) => pick(r.syncCopies)));
  const sum = (pick: (r: SyncCopiesRound) => number) => rounds.reduce((total, r) => total + pick(r.syncCopies), 0);
  return {
    copies: first.copies,
    waitSeconds: first.waitSeconds,
    requestsPerSecond: of((r) => r.requestsPerSecond),
    freshnessP50Ms: of((r) => r.freshness.p50Ms),
    freshnessP99Ms: of((r) => r.freshness.p99Ms),
    freshnessMaxMs: of((r) => r.freshness.maxMs),
    requests: sum((r) => r.counts.requests),
    withChanges: sum((r) => r.counts.withChanges),
    empty: sum((r) => r.counts.empty),
    aborted: sum((r) => r.counts.aborted),
    failed: sum((r) => r.counts.failed),
    writes: sum((r) => r.freshness.writes),
    missed: sum((r) => r.freshness.missed),
  };
}

const fmt = (value: number, digits = 0) =>
  value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
const range = (s: Spread | null, digits = 0, scale = 1) =>
  s === null
    ? "–"
    : s.min === s.max
      ? fmt(s.median * scale, digits)
      : `${fmt(s.median * scale, digits)} (${fmt(s.min * scale, digits)}-${fmt(s.max * scale, digits)})`;

/** The one line a run ends with: `mix: api/floor ..., pg-cpu api/floor ..., p99 api/floor ...`. */
export function mixSummaryLine(report: MixReport): string {
  const { api, floor, naive } = report.servers;
  const { ratios } = report;
  const x = (s: Spread) => `${fmt(s.median, 2)}x (${fmt(s.min, 2)}-${fmt(s.max, 2)})`;
  return (
    `mix: api/floor ${x(ratios.throughput)} req/s (api ${fmt(api.requestsPerSecond.median)}, floor ${fmt(floor.requestsPerSecond.median)}, naive ${fmt(naive.requestsPerSecond.median)}); ` +
    `pg-cpu api/floor ${x(ratios.postgresCpuPerRequest)} per request (${fmt(api.postgresCpuMsPerRequest.median, 2)} / ${fmt(floor.postgresCpuMsPerRequest.median, 2)} ms); ` +
    `p99 api/floor ${x(ratios.p99)} (${fmt(api.p99Ms.median)} / ${fmt(floor.p99Ms.median)} ms); ` +
    `server-cpu api/floor ${x(ratios.serverCpuPerRequest)}; ` +
    `page-cache hit rate ${range(api.pageCacheHitRate, 0, 100)}%; ` +
    `token lookups/req api ${range(api.tokenLookupsPerRequest, 2)}, floor ${range(floor.tokenLookupsPerRequest, 2)}; ` +
    `peak RSS MB api ${fmt(api.peakRssMb)}, floor ${fmt(floor.peakRssMb)}, naive ${fmt(naive.peakRssMb)}; ` +
    `failed api/floor/naive ${api.failed}/${floor.failed}/${naive.failed}; ` +
    copiesSummary(report) +
    `${report.settings.rounds} rounds x ${report.settings.seconds} s, load ${report.machine.loadBefore} -> ${report.machine.loadAfter}`
  );
}

/** `long-poll copies: freshness p50/p99 ms api a/b, floor c/d, naive e/f; ` (empty without copies). */
function copiesSummary(report: MixReport): string {
  const { api, floor, naive } = report.servers;
  if (api.syncCopies === null || floor.syncCopies === null || naive.syncCopies === null) return "";
  const pair = (c: SyncCopiesReport) => `${fmt(c.freshnessP50Ms.median)}/${fmt(c.freshnessP99Ms.median)}`;
  return (
    `long-poll copies (${api.syncCopies.copies}) freshness p50/p99 ms api ${pair(api.syncCopies)}, floor ${pair(floor.syncCopies)}, naive ${pair(naive.syncCopies)}, ` +
    `missed ${api.syncCopies.missed}/${floor.syncCopies.missed}/${naive.syncCopies.missed}; `
  );
}

export function mixMarkdown(report: MixReport): string {
  const { settings, data, machine } = report;
  const lines = [
    `${report.mode} mix, ${report.startedAt}; scale ${settings.scale} (${fmt(data.teams)} teams, ${fmt(data.users)} users and tokens, ` +
      `${fmt(data.events)} events, ${fmt(data.guides)} guides; largest team ${fmt(report.workload.largestTeam.events)} events, ` +
      `${fmt(report.workload.teamsUnder50Events)} teams under 50), loaded in ${fmt(data.seconds.total, 1)} s; seed ${settings.seed}; ` +
      `${machine.cpus} CPUs, Node ${machine.node}; ${settings.connections} connections, ${settings.rounds} rounds of ${settings.seconds} s per server ` +
      `(api, floor, naive in turn), ${settings.warmupSeconds} s warm-up, writer ${settings.writesPerSecond} statements/s, ${fmt(settings.compressedShare * 100)}% of users ask for gzip/br; pool ${settings.poolMax} per server; ` +
      `load average before: ${machine.loadBefore}, during (1 min, min-max): ${fmt(machine.loadDuring.min, 1)}-${fmt(machine.loadDuring.max, 1)}, after: ${machine.loadAfter}.`,
    "",
    "Median over the rounds (min-max). CPU per response: the server process, and PostgreSQL's backends serving it.",
    "",
    "| | api | floor | naive |",
    "|---|---:|---:|---:|",
  ];
  const row = (label: string, pick: (s: MixServerReport) => string) =>
    lines.push(`| ${label} | ${SERVER_NAMES.map((name) => pick(report.servers[name])).join(" | ")} |`);
  row("requests/s", (s) => range(s.requestsPerSecond));
  row("p50 ms", (s) => range(s.p50Ms));
  row("p99 ms", (s) => range(s.p99Ms));
  row("server CPU ms/req", (s) => range(s.serverCpuMsPerRequest, 2));
  row("PostgreSQL CPU ms/req", (s) => range(s.postgresCpuMsPerRequest, 2));
  row("token lookups/req (access_tokens scans)", (s) => range(s.tokenLookupsPerRequest, 2));
  row("PostgreSQL transactions/req", (s) => range(s.transactionsPerRequest, 2));
  row("statements/req (api's db_query_duration_seconds)", (s) => range(s.statementsPerRequest, 2));
  row("page-cache hit rate %", (s) => range(s.pageCacheHitRate, 0, 100));
  row("304 share %", (s) => range(s.notModifiedShare, 0, 100));
  row("bytes/response", (s) => range(s.bytesPerResponse));
  row("peak RSS MB (VmHWM)", (s) => fmt(s.peakRssMb));
  row("responses (all rounds)", (s) => fmt(s.responses));
  row("failed (neither 2xx nor 304)", (s) => fmt(s.failed));
  lines.push(
    "",
    "By kind of request (requests of the kind, all rounds; p50 / p99 ms, median over the rounds; a revalidation",
    "with nothing to revalidate goes out as a first page):",
    "",
    "| kind | share of requests | p50 / p99 ms api | floor | naive |",
    "|---|---:|---:|---:|---:|",
  );
  for (const kind of Object.keys(report.servers.api.rounds[0]?.byKind ?? {}) as RequestKind[]) {
    const requests = report.servers.api.rounds.reduce((sum, r) => sum + r.byKind[kind].requests, 0);
    const cell = (name: ServerName) => {
      const rounds = report.servers[name].rounds;
      return `${fmt(spreadOf(rounds.map((r) => r.byKind[kind].p50Ms)).median)} / ${fmt(spreadOf(rounds.map((r) => r.byKind[kind].p99Ms)).median)}`;
    };
    lines.push(
      `| ${kind} | ${fmt((100 * requests) / Math.max(1, report.servers.api.responses))}% | ${cell("api")} | ${cell("floor")} | ${cell("naive")} |`,
    );
  }
  copiesMarkdown(report, lines);
  const { ratios } = report;
  lines.push(
    "",
    `api/floor per round, median (min-max): throughput ${range(ratios.throughput, 2)}, PostgreSQL CPU per request ${range(ratios.postgresCpuPerRequest, 2)}, ` +
      `server CPU per request ${range(ratios.serverCpuPerRequest, 2)}, p99 ${range(ratios.p99, 2)}.`,
  );
  return `${lines.join("\n")}\n`;
}

/**
 * Each figure of the api and the naive peer relative to the floor's in the same round (the floor
 * is 1): bars are medians over the rounds, whiskers min-max; bars past 4x are cut at 4x and labelled.
 */
export function mixChart(report: MixReport): string {
  const relative = (name: ServerName, pick: (r: MixRound) => number | null | undefined) => {
    const values = report.servers[name].rounds.map((r, i) => {
      const own = pick(r);
      const floor = pick(report.servers.floor.rounds[i] as MixRound);
      return typeof own === "number" && typeof floor === "number" && floor > 0 ? own / floor : Number.NaN;
    });
    return values.some(Number.isNaN) ? { median: 0, min: 0, max: 0 } : spreadOf(values);
  };
  const figures: Array<[string, (r: MixRound) => number | null | undefined]> = [
    ["requests/s (higher is better)", (r) => r.requestsPerSecond],
    ["p50 latency", (r) => r.p50Ms],
    ["p99 latency", (r) => r.p99Ms],
    ["server CPU per request", (r) => r.serverCpuMsPerRequest],
    ["PostgreSQL CPU per request", (r) => r.postgresCpuMsPerRequest],
    ["token lookups per request", (r) => r.tokenLookupsPerRequest],
    ["PostgreSQL transactions per request", (r) => r.transactionsPerRequest],
    ["bytes per response", (r) => r.bytesPerResponse],
  ];
  return barChartSvg(
    `mix: api and naive peer relative to the floor (= 1), median and min-max of ${report.settings.rounds} rounds`,
    "ratio to the floor in the same round",
    [
      { label: "api", color: "#1f77b4" },
      { label: "floor", color: "#7f7f7f" },
      { label: "naive", color: "#ff7f0e" },
    ],
    figures.map(([label, pick]) => ({
      label,
      bars: [relative("api", pick), { median: 1, min: 1, max: 1 }, relative("naive", pick)],
    })),
    { clampAt: 4 },
  );
}

function copiesMarkdown(report: MixReport, lines: string[]): void {
  const copies = SERVER_NAMES.map((name) => report.servers[name].syncCopies);
  if (copies.some((c) => c === null)) return;
  const all = copies as SyncCopiesReport[];
  const first = all[0] as SyncCopiesReport;
  lines.push(
    "",
    `Long-poll copies beside the mix: ${fmt(first.copies)} copies (both lists of the ${fmt(first.copies / 2)} largest teams), ` +
      `each asking \`/changes?since=...&wait=${first.waitSeconds}\` again as soon as it has its answer, on connections of their own; ` +
      "their responses are not in the latencies above. Freshness: from the writer sending a write to the copy holding the " +
      "response with it (a round's last seconds left out; a write counted and never seen is missed). " +
      "The floor holds them as the api does (one LISTEN connection, the same notices); the naive peer reads the feed again every second.",
    "",
    "| | api | floor | naive |",
    "|---|---:|---:|---:|",
  );
  const row = (label: string, pick: (c: SyncCopiesReport) => string) =>
    lines.push(`| ${label} | ${all.map(pick).join(" | ")} |`);
  row("requests/s (all copies)", (c) => range(c.requestsPerSecond, 1));
  row("answered with changes / with nothing (wait over) / held at a round's end", (c) =>
    [c.withChanges, c.empty, c.aborted].map((n) => fmt(n)).join(" / "),
  );
  row("freshness p50 ms", (c) => range(c.freshnessP50Ms));
  row("freshness p99 ms", (c) => range(c.freshnessP99Ms));
  row("freshness max ms", (c) => range(c.freshnessMaxMs));
  row("writes counted / missed (all rounds)", (c) => `${fmt(c.writes)} / ${fmt(c.missed)}`);
  row("failed", (c) => fmt(c.failed));
}
