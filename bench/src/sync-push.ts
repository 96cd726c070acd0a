import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { standaloneClient, standalonePool } from "@community/db";
import { createTestDatabase } from "@community/db/testing";
import { CHANGES_WAIT } from "@community/domain";
import type { Client, Pool } from "pg";
import { startCpuWindow } from "./cpu";
import { loadMixData } from "./mix-load";
import { type MetricSums, scrapeMetrics } from "./mix-metrics";
import { mixShape, teamId, userToken } from "./mix-workload";
import { WRITER_APPLICATION } from "./mix-writer";
import { REPO_ROOT, startServer } from "./servers";
import {
  type CopyCounts,
  type CopyMode,
  FreshnessLedger,
  type FreshnessSummary,
  SyncCopies,
  SyncCopy,
  type WriteSent,
} from "./sync-copies";
import { runWatchers, type WatchersReport, watchersMarkdown } from "./sync-watchers";

/**
 * `pnpm bench --sync-push`: what keeping one copy of a list current costs the service per hour,
 * polled against long-polled, for the same writes. N copies (one per team, each of its team's
 * events) run at once so that the counts are large enough to read, and every figure is divided by
 * N; three phases on the api, each with the same writes: none of the copies (the baseline: what
 * the writes and the api's own background cost), polling copies, long-polling copies.
 */

const METRICS_TOKEN = "bench-sync-push-metrics-token-0123456789";
/** PostgreSQL 15 reports a backend's last second of statistics 10 s after it goes idle (mix.ts). */
const SETTLE_SECONDS = 11;

export interface SyncPushSettings {
  quick: boolean;
  /** Copies run at once (one per team); figures are per copy. */
  copies: number;
  /** Measured seconds per phase. */
  seconds: number;
  /** The polling copies' interval, which is also the freshness target. */
  pollSeconds: number;
  /** `wait` of the long-polling copies. */
  waitSeconds: number;
  /** One write to each copy's list every this many seconds. */
  writeEverySeconds: number;
  settleSeconds: number;
  /** Long polls of one team for the watchers case (0: no such case). */
  watchers: number;
  watcherRounds: number;
}

function integerSetting(name: string, fallback: number, min: number, max: number): number {
  const value = process.env[name];
  if (value === undefined || value === "") return fallback;
  const number = Number(value);
  if (!Number.isSafeInteger(number) || number < min || number > max) {
    throw new Error(`${name} must be an integer from ${min} to ${max}, got ${value}`);
  }
  return number;
}

/**
 * `--sync-push [--quick]`; sizes from the environment (bench/README.md). Quick: 10 copies, 8 s
 * phases and no pause for the statistics (so PostgreSQL's counts are not exact): a smoke run.
 */
export function parseSyncPushArgs(argv: string[]): SyncPushSettings {
  const unknown = argv.filter((a) => a !== "--sync-push" && a !== "--quick");
  if (unknown.length > 0) throw new Error(`unknown argument(s) with --sync-push: ${unknown.join(" ")} (use --quick)`);
  const quick = argv.includes("--quick");
  const settings: SyncPushSettings = {
    quick,
    copies: integerSetting("BENCH_SYNC_COPIES", quick ? 10 : 50, 1, 1000),
    seconds: integerSetting("BENCH_SYNC_SECONDS", quick ? 8 : 20, 1, 3600),
    pollSeconds: integerSetting("BENCH_SYNC_POLL_SECONDS", 5, 1, 3600),
    waitSeconds: integerSetting("BENCH_SYNC_WAIT_SECONDS", CHANGES_WAIT.max, 1, CHANGES_WAIT.max),
    writeEverySeconds: integerSetting("BENCH_SYNC_WRITE_SECONDS", 10, 1, 3600),
    settleSeconds: integerSetting("BENCH_SYNC_SETTLE_SECONDS", quick ? 0 : SETTLE_SECONDS, 0, 600),
    watchers: integerSetting("BENCH_SYNC_WATCHERS", 1000, 0, 10_000),
    watcherRounds: integerSetting("BENCH_SYNC_WATCHER_ROUNDS", quick ? 2 : 5, 1, 100),
  };
  if (settings.seconds <= settings.pollSeconds + 1) {
    throw new Error(
      `BENCH_SYNC_SECONDS (${settings.seconds}) must be longer than the poll interval and 1 s (${settings.pollSeconds + 1})`,
    );
  }
  return settings;
}

/** PostgreSQL's counters of the database: every backend's work, the writer's and the monitor's included. */
interface DatabaseWork {
  transactions: number;
  /** Shared buffers read: hits plus blocks read in. */
  bufferAccesses: number;
}

async function databaseWork(monitor: Pool): Promise<DatabaseWork> {
  const { rows } = await monitor.query<{ transactions: number; buffers: number }>(
    `SELECT (xact_commit + xact_rollback)::float8 AS transactions, (blks_hit + blks_read)::float8 AS buffers
       FROM pg_stat_database WHERE datname = current_database()`,
  );
  const row = rows[0];
  if (row === undefined) throw new Error("no pg_stat_database row for the bench database");
  return { transactions: row.transactions, bufferAccesses: row.buffers };
}

/** What one phase cost over its window, all copies together. */
export interface PhaseTotals {
  requests: number;
  withChanges: number;
  empty: number;
  /** The api's statements and their summed time as it timed them (db_query_duration_seconds). */
  statements: number;
  statementMs: number;
  transactions: number;
  bufferAccesses: number;
  postgresCpuMs: number;
  apiCpuMs: number;
}

export interface PhaseReport {
  name: string;
  mode: CopyMode | null;
  copies: number;
  seconds: number;
  writes: number;
  counts: CopyCounts;
  totals: PhaseTotals;
  freshness: FreshnessSummary | null;
  /** The long polls' wakes and timeouts, from the api's /metrics. */
  waitWakes: number;
  waitTimeouts: number;
}

export interface SyncPushReport {
  startedAt: string;
  finishedAt: string;
  mode: "quick" | "full";
  machine: { cpus: number; node: string; loadBefore: string; loadAfter: string };
  settings: SyncPushSettings;
  teams: { largestEvents: number; smallestEvents: number };
  phases: PhaseReport[];
  /**
   * Per copy and hour, net of the two baselines' mean, for the polling and the long-polling phase;
   * and the second baseline less the first on the same scale: what the counts move by themselves.
   */
  perCopyHour: Record<"poll" | "long poll" | "baselines' difference", PhaseTotals>;
  /** Many long polls of one team (sync-watchers.ts); null when BENCH_SYNC_WATCHERS=0. */
  watchers: WatchersReport | null;
  summary: string;
}

const metric = (sums: MetricSums, name: string) => sums.get(name) ?? 0;
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
const log = (message: string) => process.stderr.write(`${message}\n`);

/**
 * One write to each copy's team list every `writeEverySeconds`, copy k's first at k/N of the
 * interval, so that writes are spread evenly; the writer sends them one at a time, each its own
 * transaction, and tells `onWrite` as each goes out.
 */
async function writeSchedule(
  writer: Client,
  settings: { copies: number; seconds: number; everyMs: number },
  began: number,
  phase: string,
  eventsOf: (team: number) => number,
  onWrite: (write: WriteSent) => void,
): Promise<number> {
  const { everyMs } = settings;
  const end = began + settings.seconds * 1000;
  const due: Array<{ at: number; team: number; seq: number }> = [];
  for (let team = 0; team < settings.copies; team++) {
    for (let seq = 0; ; seq++) {
      const at = began + (everyMs * team) / settings.copies + seq * everyMs;
      if (at >= end) break;
      due.push({ at, team, seq });
    }
  }
  due.sort((a, b) => a.at - b.at);
  for (const { at, team, seq } of due) {
    const wait = at - performance.now();
    if (wait > 0) await sleep(wait);
    const id = `ev_${teamId(team)}_${seq % eventsOf(team)}`;
    onWrite({ teamId: teamId(team), list: "events", id, op: "update", sentAt: performance.now() });
    await writer.query("UPDATE events SET name = $2 WHERE id = $1", [id, `Event ${seq} (${phase} write ${seq})`]);
  }
  return due.length;
}

/**
 * Which writes count for freshness: those sent up to this many ms into the window. A write of the
 * window's last poll interval and second may be seen only after it, so they never count; of the
 * rest, whole rounds of writes (one to every copy's list) when at least one fits, since the polls'
 * and the writes' offsets make each round's delays spread evenly over the poll interval, and a
 * part of a round would weigh some copies' delays twice.
 */
export function freshnessCutoffMs(seconds: number, pollSeconds: number, writeEverySeconds: number): number {
  const seeable = (seconds - pollSeconds - 1) * 1000;
  const rounds = Math.floor(seeable / (writeEverySeconds * 1000));
  return rounds >= 1 ? rounds * writeEverySeconds * 1000 : seeable;
}

/** `(phase - baseline)` per copy and hour. */
export function perCopyHour(phase: PhaseTotals, baseline: PhaseTotals, copies: number, seconds: number): PhaseTotals {
  const scale = 3600 / seconds / copies;
  const net = (pick: (t: PhaseTotals) => number) => (pick(phase) - pick(baseline)) * scale;
  return {
    requests: net((t) => t.requests),
    withChanges: net((t) => t.withChanges),
    empty: net((t) => t.empty),
    statements: net((t) => t.statements),
    statementMs: net((t) => t.statementMs),
    transactions: net((t) => t.transactions),
    bufferAccesses: net((t) => t.bufferAccesses),
    postgresCpuMs: net((t) => t.postgresCpuMs),
    apiCpuMs: net((t) => t.apiCpuMs),
  };
}

/** The mean of two phases' totals. */
export function meanTotals(a: PhaseTotals, b: PhaseTotals): PhaseTotals {
  const entries = Object.keys(a).map((key) => {
    const k = key as keyof PhaseTotals;
    return [k, (a[k] + b[k]) / 2];
  });
  return Object.fromEntries(entries) as unknown as PhaseTotals;
}

export async function runSyncPush(settings: SyncPushSettings): Promise<void> {
  const startedAt = new Date().toISOString();
  const loadBefore = load();
  // Enough teams for the copies (100 at least: the mix's 1/100 scale, loaded in a second or two).
  const shape = mixShape(Math.max(0.01, settings.copies / 10_000));
  const database = await createTestDatabase("bench_sync_push");
  const monitor = standalonePool({ connectionString: database.url, max: 1, application_name: "bench-sync-monitor" });
  const writer = standaloneClient({ connectionString: database.url, application_name: WRITER_APPLICATION });
  let api: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    log(`sync-push: loading ${shape.totals.teams} teams`);
    await loadMixData(database.url, shape);
    api = await startServer("api", { databaseUrl: database.url, poolMax: 10, env: { METRICS_TOKEN } });
    await writer.connect();
    const running = api;
    const pollMs = settings.pollSeconds * 1000;
    const copiesOf = (mode: CopyMode | null) =>
      new SyncCopies((agent) =>
        mode === null
          ? []
          : Array.from(
              { length: settings.copies },
              (_, team) =>
                new SyncCopy(
                  running.baseUrl,
                  userToken(shape.firstUser[team] as number),
                  teamId(team),
                  "events",
                  mode,
                  agent,
                ),
            ),
      );
    const pollMode: CopyMode = { kind: "poll", everyMs: pollMs };
    const longPollMode: CopyMode = { kind: "long poll", waitSeconds: settings.waitSeconds };

    async function runPhase(
      name: string,
      mode: CopyMode | null,
      seconds: number,
      settleSeconds: number,
    ): Promise<PhaseReport> {
      const copies = copiesOf(mode);
      // A token at the current position, so that no phase starts behind on the writes before it.
      await copies.begin();
      const ledger = new FreshnessLedger(copies.followed);
      // Long polls are held before the window opens, as they are at any time once a copy runs: the
      // window counts what each write costs them (a wake, an answer, the next request), not a start.
      let stopCopies = mode?.kind === "long poll" ? copies.start(ledger) : undefined;
      await sleep(settleSeconds * 1000);
      const workBefore = await databaseWork(monitor);
      const metricsBefore = await scrapeMetrics(running.baseUrl, METRICS_TOKEN);
      const stopCpu = await startCpuWindow(running.pid, monitor, { excludeApplications: [WRITER_APPLICATION] });
      const began = performance.now();
      stopCopies ??= copies.start(ledger, (i) => began + (pollMs * i) / settings.copies);
      const writing = writeSchedule(
        writer,
        { copies: settings.copies, seconds, everyMs: settings.writeEverySeconds * 1000 },
        began,
        name,
        (team) => shape.events[team] as number,
        (write) => ledger.wrote(write),
      );
      await sleep(Math.max(0, began + seconds * 1000 - performance.now()));
      const counts = await stopCopies();
      const cpu = await stopCpu();
      const writes = await writing;
      await sleep(settleSeconds * 1000);
      const workAfter = await databaseWork(monitor);
      const metricsAfter = await scrapeMetrics(running.baseUrl, METRICS_TOKEN);
      const delta = (metricName: string) => metric(metricsAfter, metricName) - metric(metricsBefore, metricName);
      if (counts.failed > 0) {
        throw new Error(`${name}: ${counts.failed} copy requests failed (${JSON.stringify(counts.otherStatuses)})`);
      }
      const cutoff = began + freshnessCutoffMs(seconds, settings.pollSeconds, settings.writeEverySeconds);
      return {
        name,
        mode,
        copies: copies.copies.length,
        seconds,
        writes,
        counts,
        totals: {
          requests: counts.requests,
          withChanges: counts.withChanges,
          empty: counts.empty,
          statements: delta("db_query_duration_seconds_count"),
          statementMs: delta("db_query_duration_seconds_sum") * 1000,
          transactions: workAfter.transactions - workBefore.transactions,
          bufferAccesses: workAfter.bufferAccesses - workBefore.bufferAccesses,
          postgresCpuMs: cpu.postgresMs,
          apiCpuMs: cpu.serverMs,
        },
        freshness: mode === null ? null : ledger.summary(cutoff, pollMs),
        waitWakes: delta("list_changes_wait_wakes_total"),
        waitTimeouts: delta("list_changes_wait_timeouts_total"),
      };
    }

    // Not measured: the writer's connection plans its statement and the triggers', the api's pool
    // opens its connections and prepares its statements, the monitor's queries are planned.
    const warmUpSeconds = settings.pollSeconds + 2;
    for (const mode of [pollMode, longPollMode]) await runPhase(`warm-up ${mode.kind}`, mode, warmUpSeconds, 0);

    const phases: Array<{ name: string; mode: CopyMode | null }> = [
      { name: "baseline (writes, no copy)", mode: null },
      { name: `poll every ${settings.pollSeconds} s`, mode: pollMode },
      { name: `long poll (wait=${settings.waitSeconds})`, mode: longPollMode },
      { name: "baseline again", mode: null },
    ];
    const reports: PhaseReport[] = [];
    for (const { name, mode } of phases) {
      const report = await runPhase(name, mode, settings.seconds, settings.settleSeconds);
      reports.push(report);
      log(
        `sync-push ${name}: ${report.counts.requests} requests, ${report.writes} writes, ${report.totals.statements} statements, ` +
          `${report.totals.transactions} transactions, ${report.totals.bufferAccesses} buffer accesses` +
          (report.freshness === null
            ? ""
            : `, freshness p50 ${report.freshness.p50Ms.toFixed(0)} ms, max ${report.freshness.maxMs.toFixed(0)} ms`) +
          `; load ${load()}`,
      );
    }
    const watchers =
      settings.watchers === 0
        ? null
        : await runWatchers({
            baseUrl: running.baseUrl,
            metricsToken: METRICS_TOKEN,
            writer,
            scale: shape.scale,
            watchers: settings.watchers,
            rounds: settings.watcherRounds,
            waitSeconds: settings.waitSeconds,
          });
    if (watchers !== null) {
      const worst = Math.max(...watchers.rounds.map((r) => r.p99Ms));
      log(
        `sync-push watchers: ${watchers.watchers} holds of one team, worst round p99 ${worst.toFixed(0)} ms; load ${load()}`,
      );
    }
    const [baseline, poll, longPoll, baselineAgain] = reports as [PhaseReport, PhaseReport, PhaseReport, PhaseReport];
    const baselines = meanTotals(baseline.totals, baselineAgain.totals);
    const report: SyncPushReport = {
      startedAt,
      finishedAt: new Date().toISOString(),
      mode: settings.quick ? "quick" : "full",
      machine: { cpus: cpus().length, node: process.version, loadBefore, loadAfter: load() },
      settings,
      teams: {
        largestEvents: shape.events[0] as number,
        smallestEvents: shape.events[settings.copies - 1] as number,
      },
      phases: reports,
      perCopyHour: {
        poll: perCopyHour(poll.totals, baselines, settings.copies, settings.seconds),
        "long poll": perCopyHour(longPoll.totals, baselines, settings.copies, settings.seconds),
        "baselines' difference": perCopyHour(baselineAgain.totals, baseline.totals, settings.copies, settings.seconds),
      },
      watchers,
      summary: "",
    };
    report.summary = syncPushSummaryLine(report);
    const dir = path.join(REPO_ROOT, "bench/results", settings.quick ? "quick/sync-push" : "sync-push");
    mkdirSync(dir, { recursive: true });
    const json = `${JSON.stringify(report, null, 2)}\n`;
    writeFileSync(path.join(dir, `${startedAt.replace(/[:.]/g, "-")}.json`), json);
    writeFileSync(path.join(dir, "latest.json"), json);
    const markdown = syncPushMarkdown(report);
    writeFileSync(path.join(dir, "latest.md"), markdown);
    process.stdout.write(
      `\n${markdown}\nresults in ${path.relative(REPO_ROOT, dir)}/latest.{json,md}\n${report.summary}\n`,
    );
  } finally {
    await api?.stop();
    await writer.end().catch(() => undefined);
    await monitor.end();
    await database.drop();
  }
}

const fmt = (value: number, digits = 0) =>
  value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** The one line a run ends with. */
export function syncPushSummaryLine(report: SyncPushReport): string {
  const poll = report.perCopyHour.poll;
  const longPoll = report.perCopyHour["long poll"];
  const [, pollPhase, longPhase] = report.phases;
  const fresh = (phase: PhaseReport | undefined) =>
    phase?.freshness ? `${fmt(phase.freshness.p50Ms)}/${fmt(phase.freshness.maxMs)}` : "-";
  const { settings } = report;
  return (
    `sync-push: per copy and hour, poll every ${settings.pollSeconds} s / long poll: requests ${fmt(poll.requests)} / ${fmt(longPoll.requests)}, ` +
    `statements ${fmt(poll.statements)} / ${fmt(longPoll.statements)}, transactions ${fmt(poll.transactions)} / ${fmt(longPoll.transactions)}, ` +
    `buffer accesses ${fmt(poll.bufferAccesses)} / ${fmt(longPoll.bufferAccesses)}, PostgreSQL CPU ms ${fmt(poll.postgresCpuMs)} / ${fmt(longPoll.postgresCpuMs)}; ` +
    `freshness p50/max ms ${fresh(pollPhase)} / ${fresh(longPhase)}; ` +
    `${settings.copies} copies, one write per list every ${settings.writeEverySeconds} s, ${settings.seconds} s per phase, load ${report.machine.loadBefore} -> ${report.machine.loadAfter}`
  );
}

export function syncPushMarkdown(report: SyncPushReport): string {
  const { settings, machine } = report;
  const [, poll, longPoll] = report.phases as [PhaseReport, PhaseReport, PhaseReport];
  const perHour = report.perCopyHour;
  const lines = [
    `${report.mode} sync-push, ${report.startedAt}; ${settings.copies} copies at once, each of one team's events ` +
      `(teams of ${fmt(report.teams.largestEvents)} down to ${fmt(report.teams.smallestEvents)} events), kept by one of its members; ` +
      `one write (an UPDATE, its own transaction) to each copy's list every ${settings.writeEverySeconds} s, the copies' writes spread evenly; ` +
      `four phases of ${settings.seconds} s on the api as in production, after a warm-up (a baseline: the same writes, no copy; ` +
      `polling every ${settings.pollSeconds} s; long polling with wait=${settings.waitSeconds}, its requests held before the window opens; ` +
      `the baseline again), ${settings.settleSeconds} s pause before each count; ` +
      `${machine.cpus} CPUs, Node ${machine.node}; load average before: ${machine.loadBefore}, after: ${machine.loadAfter}.`,
    "",
    `Per copy and hour: the phase's count minus the two baselines' mean, x 3600 / ${settings.seconds} s, / ${settings.copies} copies ` +
      `(one ${settings.seconds} s window extrapolated). The last column is the second baseline less the first on the same scale: ` +
      "how far the database-wide counts move with no copy at all. PostgreSQL and api CPU come from /proc in 10 ms ticks: rough.",
    "",
    `| per copy and hour | poll every ${settings.pollSeconds} s | long poll (wait=${settings.waitSeconds}) | long poll / poll | baselines' difference |`,
    "|---|---:|---:|---:|---:|",
  ];
  const row = (label: string, pick: (t: PhaseTotals) => number, digits = 0) => {
    const a = pick(perHour.poll);
    const b = pick(perHour["long poll"]);
    const noise = pick(perHour["baselines' difference"]);
    lines.push(
      `| ${label} | ${fmt(a, digits)} | ${fmt(b, digits)} | ${a > 0 ? fmt(b / a, 2) : "–"} | ${fmt(noise, digits)} |`,
    );
  };
  row("requests", (t) => t.requests);
  row("... answered with changes", (t) => t.withChanges);
  row("... answered with nothing new", (t) => t.empty);
  row("api statements (db_query_duration_seconds count)", (t) => t.statements);
  row("api statement time ms (its sum)", (t) => t.statementMs, 1);
  row("PostgreSQL transactions (pg_stat_database)", (t) => t.transactions);
  row("PostgreSQL buffer accesses (blks_hit + blks_read)", (t) => t.bufferAccesses);
  row("PostgreSQL CPU ms (the api's backends)", (t) => t.postgresCpuMs);
  row("api CPU ms", (t) => t.apiCpuMs);
  const freshness = (phase: PhaseReport) => {
    const f = phase.freshness as FreshnessSummary;
    return `${fmt(f.p50Ms)} / ${fmt(f.p99Ms)} / ${fmt(f.maxMs)}`;
  };
  const within = (phase: PhaseReport) => fmt(((phase.freshness as FreshnessSummary).withinTarget ?? 0) * 100, 1);
  lines.push(
    `| freshness p50 / p99 / max ms (write sent to copy holding it) | ${freshness(poll)} | ${freshness(longPoll)} | | |`,
    `| writes seen within ${settings.pollSeconds} s % | ${within(poll)} | ${within(longPoll)} | | |`,
    "",
    `Freshness over the writes sent in the first ${fmt(freshnessCutoffMs(settings.seconds, settings.pollSeconds, settings.writeEverySeconds) / 1000, 1)} s of each window ` +
      `(${(poll.freshness as FreshnessSummary).writes} and ${(longPoll.freshness as FreshnessSummary).writes}; missed: ` +
      `${(poll.freshness as FreshnessSummary).missed} and ${(longPoll.freshness as FreshnessSummary).missed}). ` +
      `The long polls' wakes / timeouts (api /metrics): ${fmt(longPoll.waitWakes)} / ${fmt(longPoll.waitTimeouts)}; ` +
      `held at the window's end (not answered, not counted): ${fmt(longPoll.counts.aborted)}.`,
    "",
    "Totals of each phase's window (all copies; the baseline is what the writes and the api's own background cost):",
    "",
    "| phase | writes | requests | statements | transactions | buffer accesses | PostgreSQL CPU ms | api CPU ms |",
    "|---|---:|---:|---:|---:|---:|---:|---:|",
  );
  for (const phase of report.phases) {
    const t = phase.totals;
    lines.push(
      `| ${phase.name} | ${fmt(phase.writes)} | ${fmt(t.requests)} | ${fmt(t.statements)} | ${fmt(t.transactions)} | ` +
        `${fmt(t.bufferAccesses)} | ${fmt(t.postgresCpuMs)} | ${fmt(t.apiCpuMs)} |`,
    );
  }
  if (report.watchers !== null) lines.push("", watchersMarkdown(report.watchers, settings.waitSeconds));
  return `${lines.join("\n")}\n`;
}
