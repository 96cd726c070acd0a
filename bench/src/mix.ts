import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { standaloneClient, standalonePool } from "@community/db";
import { createTestDatabase } from "@community/db/testing";
import { CHANGES_WAIT } from "@community/domain";
import { startCpuWindow } from "./cpu";
import { MixClients, type MixDriveResult } from "./mix-client";
import { loadMixData } from "./mix-load";
import { databaseCounters, deltaEndingWith, metricDeltas, scrapeMetrics } from "./mix-metrics";
import { type MixReport, type MixRound, mixChart, mixMarkdown, mixSummaryLine, summarizeServer } from "./mix-report";
import {
  copyKeeper,
  type ListName,
  type MixSettings,
  type MixShape,
  mixShape,
  PER_PAGE_SHARES,
  REQUEST_SHARES,
  teamId,
  userToken,
} from "./mix-workload";
import { MixWriter, WRITER_APPLICATION } from "./mix-writer";
import { spreadOf } from "./report";
import { REPO_ROOT, type RunningServer, SERVER_NAMES, type ServerName, startServer } from "./servers";
import { emptyCounts, FreshnessLedger, SyncCopies, SyncCopy } from "./sync-copies";

const METRICS_TOKEN = "bench-mix-metrics-token-0123456789";
/**
 * A PostgreSQL 15 backend reports the statistics of its last second of work 10 s after it goes
 * idle (PGSTAT_IDLE_INTERVAL): a pause this long after a window makes the window's counts exact.
 */
const STATISTICS_SETTLE_SECONDS = 11;

function numberSetting(name: string, value: string | undefined, fallback: number, integer: boolean): number {
  if (value === undefined || value === "") return fallback;
  const number = Number(value);
  if (!Number.isFinite(number) || number < 0 || (integer && !Number.isSafeInteger(number))) {
    throw new Error(`${name} must be a non-negative ${integer ? "integer" : "number"}, got ${value}`);
  }
  return number;
}

/** `--mix [--quick] [--mix-scale=0.1] [--mix-seed=22]`, durations and rates from the environment. */
export function parseMixArgs(argv: string[]): MixSettings {
  const quick = argv.includes("--quick");
  const option = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const unknown = argv.filter(
    (a) => a !== "--mix" && a !== "--quick" && !a.startsWith("--mix-scale=") && !a.startsWith("--mix-seed="),
  );
  if (unknown.length > 0) {
    throw new Error(
      `unknown argument(s) with --mix: ${unknown.join(" ")} (use --quick, --mix-scale=0.1, --mix-seed=22)`,
    );
  }
  const env = process.env;
  const scale = numberSetting("--mix-scale", option("mix-scale") ?? env.BENCH_MIX_SCALE, quick ? 0.01 : 1, false);
  if (!(scale > 0 && scale <= 1)) throw new Error(`the mix scale must be in (0, 1], got ${scale}`);
  const positive = (name: string, fallback: number) => {
    const value = numberSetting(name, env[name], fallback, true);
    if (value < 1) throw new Error(`${name} must be at least 1`);
    return value;
  };
  const share = (name: string, fallback: number) => {
    const value = numberSetting(name, env[name], fallback, false);
    if (value > 1) throw new Error(`${name} is a share between 0 and 1, got ${value}`);
    return value;
  };
  return {
    quick,
    scale,
    seed: option("mix-seed") ?? env.BENCH_MIX_SEED ?? "22",
    rounds: positive("BENCH_ROUNDS", quick ? 2 : 3),
    seconds: positive("BENCH_SECONDS", quick ? 2 : 20),
    warmupSeconds: positive("BENCH_WARMUP_SECONDS", quick ? 1 : 5),
    connections: positive("BENCH_CONNECTIONS", 10),
    poolMax: positive("DB_POOL_MAX", 10),
    writesPerSecond: numberSetting("BENCH_MIX_WRITES_PER_SECOND", env.BENCH_MIX_WRITES_PER_SECOND, 30, false),
    settleSeconds: numberSetting(
      "BENCH_MIX_SETTLE_SECONDS",
      env.BENCH_MIX_SETTLE_SECONDS,
      quick ? 0 : STATISTICS_SETTLE_SECONDS,
      false,
    ),
    compressedShare: share("BENCH_MIX_COMPRESSED_SHARE", 0.5),
    longPollTeams: numberSetting("BENCH_MIX_LONG_POLL_TEAMS", env.BENCH_MIX_LONG_POLL_TEAMS, 10, true),
    longPollWaitSeconds: waitSeconds(env.BENCH_MIX_LONG_POLL_WAIT),
  };
}

function waitSeconds(value: string | undefined): number {
  const seconds = numberSetting("BENCH_MIX_LONG_POLL_WAIT", value, 30, true);
  if (seconds < 1 || seconds > CHANGES_WAIT.max) {
    throw new Error(`BENCH_MIX_LONG_POLL_WAIT is the long polls' wait, 1 to ${CHANGES_WAIT.max} s, got ${value}`);
  }
  return seconds;
}

/**
 * The long-poll copies of one server: for each of the `teams` largest teams, a copy of each list,
 * kept by the team's last member with `wait` long polls.
 */
function longPollCopies(baseUrl: string, shape: MixShape, settings: MixSettings): SyncCopies {
  const mode = { kind: "long poll", waitSeconds: settings.longPollWaitSeconds } as const;
  return new SyncCopies((agent) =>
    Array.from({ length: settings.longPollTeams }, (_, team) =>
      (["events", "guides"] as ListName[]).map(
        (list) => new SyncCopy(baseUrl, userToken(copyKeeper(shape, team)), teamId(team), list, mode, agent),
      ),
    ).flat(),
  );
}

/**
 * Writes of a round's last 2 s (of its second half, in rounds shorter than 4 s) are left out of the
 * copies' freshness: they may be seen only after the round ends, when the copies have stopped.
 * The contract's bound is 1 s on an unloaded machine; a write counted and not seen is "missed".
 */
const copyCutoffMs = (seconds: number) => Math.min(2000, seconds * 500);

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
const log = (message: string) => process.stderr.write(`${message}\n`);

/**
 * `pnpm bench --mix`: many teams of Zipf-distributed sizes, a token per user, requests drawn per
 * user, a writer during every round; the api as deployed, the floor and the naive peer take turns
 * (api, floor, naive, api, ...) on the same data and the same request stream.
 */
export async function runMix(settings: MixSettings): Promise<void> {
  const startedAt = new Date().toISOString();
  const loadBefore = load();
  const shape = mixShape(settings.scale);
  if (settings.longPollTeams > shape.totals.teams) {
    throw new Error(
      `BENCH_MIX_LONG_POLL_TEAMS is ${settings.longPollTeams}, more than the mix's ${shape.totals.teams} teams`,
    );
  }
  const database = await createTestDatabase("bench_mix");
  const servers = new Map<ServerName, RunningServer>();
  const monitor = standalonePool({ connectionString: database.url, max: 1, application_name: "bench-mix-monitor" });
  const writerClient = standaloneClient({ connectionString: database.url, application_name: WRITER_APPLICATION });
  try {
    log(
      `mix: loading ${shape.totals.teams.toLocaleString("en-US")} teams, ${shape.totals.users.toLocaleString("en-US")} users, ` +
        `${shape.totals.events.toLocaleString("en-US")} events, ${shape.totals.guides.toLocaleString("en-US")} guides (scale ${settings.scale})`,
    );
    const data = await loadMixData(database.url, shape);
    log(`mix: loaded in ${data.seconds.total.toFixed(1)} s (events ${data.seconds.events.toFixed(1)} s)`);
    for (const name of SERVER_NAMES) {
      servers.set(
        name,
        await startServer(name, {
          databaseUrl: database.url,
          poolMax: settings.poolMax,
          env: name === "api" ? { METRICS_TOKEN } : {},
        }),
      );
    }
    await writerClient.connect();
    const server = (name: ServerName) => servers.get(name) as RunningServer;
    const clients = Object.fromEntries(
      SERVER_NAMES.map((name) => [name, new MixClients(server(name).baseUrl, shape, settings.compressedShare)]),
    ) as Record<ServerName, MixClients>;
    const writer = new MixWriter(writerClient, shape, settings.writesPerSecond);
    const copies = Object.fromEntries(
      SERVER_NAMES.map((name) => [name, longPollCopies(server(name).baseUrl, shape, settings)]),
    ) as Record<ServerName, SyncCopies>;
    for (const name of SERVER_NAMES) await copies[name].begin();

    // JIT, pools and the api's caches warm up on a stream of their own; then the statistics settle.
    for (const name of SERVER_NAMES) {
      await clients[name].drive(`${settings.seed}/warm-up`, {
        connections: settings.connections,
        seconds: settings.warmupSeconds,
      });
    }
    await sleep(settings.settleSeconds * 1000);

    const rounds = Object.fromEntries(SERVER_NAMES.map((name) => [name, [] as MixRound[]])) as Record<
      ServerName,
      MixRound[]
    >;
    const loadDuring: number[] = [];
    for (let round = 0; round < settings.rounds; round++) {
      for (const name of SERVER_NAMES) {
        loadDuring.push(loadavg()[0] as number);
        const measured = await measureRound(name, round);
        rounds[name].push(measured);
        log(
          `mix round ${round + 1} ${name}: ${measured.requestsPerSecond.toFixed(0)} req/s, p50 ${measured.p50Ms} ms, ` +
            `p99 ${measured.p99Ms} ms, CPU ms/req ${measured.serverCpuMsPerRequest.toFixed(2)} + pg ${measured.postgresCpuMsPerRequest.toFixed(2)}, ` +
            `token lookups/req ${measured.tokenLookupsPerRequest?.toFixed(2) ?? "-"}, ` +
            `304 ${measured.notModified}, failed ${measured.failed}` +
            `, long-poll copies ${measured.syncCopies.counts.requests} answers, freshness p50/p99 ` +
            `${measured.syncCopies.freshness.p50Ms.toFixed(0)}/${measured.syncCopies.freshness.p99Ms.toFixed(0)} ms` +
            ` (missed ${measured.syncCopies.freshness.missed}, failed ${measured.syncCopies.counts.failed})` +
            (measured.pageCache ? `, page cache hit rate ${(measured.pageCache.hitRate * 100).toFixed(0)}%` : "") +
            `; load ${load()}`,
        );
      }
    }

    async function measureRound(name: ServerName, round: number): Promise<MixRound> {
      const running = server(name);
      const counters = await databaseCounters(monitor);
      const metrics = name === "api" ? await scrapeMetrics(running.baseUrl, METRICS_TOKEN) : undefined;
      let rssPeak = running.rssMb();
      const sampler = setInterval(() => {
        rssPeak = Math.max(rssPeak, running.rssMb());
      }, 250);
      const stopCpu = await startCpuWindow(running.pid, monitor, { excludeApplications: [WRITER_APPLICATION] });
      // The long-poll copies follow their lists beside the load, on connections of their own: their
      // held requests are not latency samples of the mix's requests.
      const ledger = new FreshnessLedger(copies[name].followed);
      const stopCopies = copies[name].start(ledger);
      // The same writes in every server's round r: the same seed, ids of its own.
      const stopWriter = writer.start(`${settings.seed}/writes/${round}`, `${name[0]}${round}`, (write) =>
        ledger.wrote(write),
      );
      let drive: MixDriveResult;
      let copyCounts = emptyCounts();
      let copiesEnd = 0;
      try {
        drive = await clients[name].drive(`${settings.seed}/round/${round}`, {
          connections: settings.connections,
          seconds: settings.seconds,
        });
      } finally {
        clearInterval(sampler);
        copiesEnd = performance.now();
        copyCounts = await stopCopies();
      }
      const cpu = await stopCpu();
      const writes = await stopWriter();
      await sleep(settings.settleSeconds * 1000);
      const countersAfter = await databaseCounters(monitor);
      // Per response: the mix's and the copies' (the window's CPU and statements serve both).
      const responses = drive.responses + copyCounts.requests;
      const perRequest = (value: number) => (responses > 0 ? value / responses : 0);
      // Counts of PostgreSQL's statistics only when the pause let every backend report its window.
      const settled = settings.settleSeconds >= STATISTICS_SETTLE_SECONDS;
      const result: MixRound = {
        ...drive,
        round,
        serverCpuMsPerRequest: perRequest(cpu.serverMs),
        postgresCpuMsPerRequest: perRequest(cpu.postgresMs),
        tokenLookupsPerRequest: settled ? perRequest(countersAfter.tokenScans - counters.tokenScans) : null,
        transactionsPerRequest: settled
          ? perRequest(countersAfter.transactions - counters.transactions - writes.statements)
          : null,
        rssPeakMb: rssPeak,
        writes,
        syncCopies: {
          copies: copies[name].copies.length,
          waitSeconds: settings.longPollWaitSeconds,
          counts: copyCounts,
          requestsPerSecond: copyCounts.requests / settings.seconds,
          freshness: ledger.summary(copiesEnd - copyCutoffMs(settings.seconds)),
        },
      };
      if (metrics !== undefined) {
        const after = await scrapeMetrics(running.baseUrl, METRICS_TOKEN);
        const deltas = metricDeltas(
          metrics,
          after,
          (metric) =>
            /(_total|_count)$/.test(metric) && /cache|token|db_query_duration_seconds|http_requests/.test(metric),
        );
        result.apiMetrics = deltas;
        // Gauges of caches (bytes held), as they stand at the end of the round.
        result.apiCacheGauges = Object.fromEntries(
          [...after].filter(([metric]) => /cache/.test(metric) && !/(_total|_count|_sum|_bucket)$/.test(metric)),
        );
        const hits = deltaEndingWith(deltas, "page_cache_hits_total");
        const misses = deltaEndingWith(deltas, "page_cache_misses_total");
        if (hits !== undefined && misses !== undefined) {
          result.pageCache = {
            hits,
            misses,
            evictions: deltaEndingWith(deltas, "page_cache_evictions_total") ?? 0,
            hitRate: hits + misses > 0 ? hits / (hits + misses) : 0,
            hitsPerRequest: perRequest(hits),
          };
        }
        const statements = deltas.db_query_duration_seconds_count;
        // Scrapes and the idle pause make no statements; the api's background sweeps are few.
        if (statements !== undefined) result.statementsPerRequest = perRequest(statements);
      }
      return result;
    }

    const peakRssMb = Object.fromEntries(SERVER_NAMES.map((name) => [name, server(name).peakRssMb()])) as Record<
      ServerName,
      number
    >;
    const summaries = Object.fromEntries(
      SERVER_NAMES.map((name) => [name, summarizeServer(rounds[name], peakRssMb[name])]),
    ) as MixReport["servers"];
    const ratio = (pick: (r: MixRound) => number) =>
      spreadOf(rounds.api.map((r, i) => pick(r) / pick(rounds.floor[i] as MixRound)));
    const report: MixReport = {
      startedAt,
      finishedAt: new Date().toISOString(),
      mode: settings.quick ? "quick" : "full",
      machine: {
        cpus: cpus().length,
        node: process.version,
        loadBefore,
        loadAfter: load(),
        loadDuring: spreadOf(loadDuring),
      },
      settings: { ...settings },
      workload: {
        requestShares: Object.fromEntries(REQUEST_SHARES),
        perPageShares: Object.fromEntries(PER_PAGE_SHARES.map(([n, share]) => [String(n), share])),
        largestTeam: { events: shape.events[0] as number, guides: shape.guides[0] as number },
        teamsUnder50Events: shape.events.filter((n) => n < 50).length,
      },
      data,
      servers: summaries,
      ratios: {
        throughput: ratio((r) => r.requestsPerSecond),
        postgresCpuPerRequest: ratio((r) => r.postgresCpuMsPerRequest),
        serverCpuPerRequest: ratio((r) => r.serverCpuMsPerRequest),
        p99: ratio((r) => r.p99Ms),
      },
      summary: "",
    };
    report.summary = mixSummaryLine(report);

    const dir = path.join(REPO_ROOT, "bench/results", settings.quick ? "quick/mix" : "mix");
    mkdirSync(dir, { recursive: true });
    const stamp = startedAt.replace(/[:.]/g, "-");
    const json = `${JSON.stringify(report, null, 2)}\n`;
    writeFileSync(path.join(dir, `${stamp}.json`), json);
    writeFileSync(path.join(dir, "latest.json"), json);
    writeFileSync(path.join(dir, "latest.md"), mixMarkdown(report));
    writeFileSync(path.join(dir, "latest.svg"), mixChart(report));
    process.stdout.write(
      `\n${mixMarkdown(report)}\nresults in ${path.relative(REPO_ROOT, dir)}/latest.{json,md,svg}\n${report.summary}\n`,
    );
    const failed = SERVER_NAMES.map((name) => summaries[name].failed).reduce((a, b) => a + b, 0);
    if (failed > 0) throw new Error(`${failed} responses were neither 2xx nor 304 (see "failed" per server)`);
  } finally {
    for (const running of servers.values()) await running.stop();
    await writerClient.end().catch(() => undefined);
    await monitor.end();
    await database.drop();
  }
}
