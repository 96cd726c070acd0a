import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import path from "node:path";
import { createDatabase } from "@community/db";
import { createTestDatabase } from "@community/db/testing";
import { measureCalendar } from "./calendar-cost";
import { barChartSvg, lineChartSvg } from "./chart";
import { startCpuWindow } from "./cpu";
import { type CaseResult, drive, warmUp } from "./drive";
import { BENCH_TOKEN, loadBenchData } from "./load";
import { parseMixArgs, runMix } from "./mix";
import { summarizeProfile } from "./profile-summary";
import type { BenchReport, CaseDepth, CaseReport, SizeReport } from "./report";
import { CASE_DEPTHS, markdownTable, spreadOf, summarize } from "./report";
import { runMain } from "./run-main";
import { REPO_ROOT, type RunningServer, SERVER_NAMES, type ServerName, startServer } from "./servers";
import { measureSyncCost } from "./sync-cost";
import { parseSyncPushArgs, runSyncPush } from "./sync-push";

const EVENTS = "/v1/me/community/team/events";
const GUIDES = "/v1/me/community/team/guides";
const PROFILE_DIR = path.join(REPO_ROOT, "bench/results/profiles");
const COLORS = ["#1f77b4", "#d62728", "#2ca02c"];
const SERVER_COLORS: Record<ServerName, string> = { api: "#1f77b4", floor: "#7f7f7f", naive: "#ff7f0e" };

function parseArgs(argv: string[]) {
  const quick = argv.includes("--quick");
  const sizesArg = argv.find((a) => a.startsWith("--sizes="));
  const sizes = sizesArg
    ? sizesArg
        .slice("--sizes=".length)
        .split(",")
        .map((s) => Number(s.replace(/_/g, "")))
    : quick
      ? [1_000]
      : [1_000, 100_000, 1_000_000];
  for (const n of sizes) {
    if (!Number.isSafeInteger(n) || n < 1) throw new Error(`--sizes takes positive integers, got ${sizesArg}`);
  }
  const cpuProf = argv.includes("--cpu-prof");
  // The calendar cases alone (contract 11.2), for measuring them without the page cases' quarter hour.
  const calendarOnly = argv.includes("--calendar-only");
  // Some cases alone, by their kind (`--depths=first,compressed,gzip`: the first page for each coding).
  const depthsArg = argv.find((a) => a.startsWith("--depths="));
  const depths = depthsArg === undefined ? undefined : new Set(depthsArg.slice("--depths=".length).split(","));
  for (const depth of depths ?? []) {
    if (!CASE_DEPTHS.includes(depth as CaseDepth)) {
      throw new Error(`--depths takes some of ${CASE_DEPTHS.join(", ")}, got ${depth}`);
    }
  }
  const unknown = argv.filter(
    (a) =>
      a !== "--quick" &&
      a !== "--cpu-prof" &&
      a !== "--calendar-only" &&
      !a.startsWith("--sizes=") &&
      !a.startsWith("--depths="),
  );
  const rounds = positiveEnv("BENCH_ROUNDS", quick ? 2 : 3);
  if (unknown.length > 0)
    throw new Error(
      `unknown argument(s): ${unknown.join(" ")} (use --quick, --cpu-prof, --calendar-only, --sizes=1000,100000, --depths=first,gzip, --mix, --sync-push)`,
    );
  return {
    quick,
    sizes,
    cpuProf,
    calendarOnly,
    depths,
    connections: Number(process.env.BENCH_CONNECTIONS ?? 10),
    rounds,
    warmupSeconds: positiveEnv("BENCH_WARMUP_SECONDS", quick ? 1 : 3),
    seconds: positiveEnv("BENCH_SECONDS", quick ? 1 : 8),
    poolMax: Number(process.env.DB_POOL_MAX ?? 10),
  };
}

function positiveEnv(name: string, fallback: number): number {
  const value = process.env[name];
  if (value === undefined || value === "") return fallback;
  const number = Number(value);
  if (!Number.isSafeInteger(number) || number < 1) throw new Error(`${name} must be a positive integer, got ${value}`);
  return number;
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
const log = (message: string) => process.stderr.write(`${message}\n`);

/**
 * The ETag of the identity representation, the one the 304 case revalidates (autocannon sends no
 * Accept-Encoding). fetch() would ask for gzip and br by default, and a compressed
 * representation's tag never matches the identity one: every "revalidation" would be a full 200.
 */
async function etagOf(url: string): Promise<string> {
  const response = await fetch(url, {
    headers: { authorization: `Bearer ${BENCH_TOKEN}`, "accept-encoding": "identity" },
  });
  await response.arrayBuffer();
  const etag = response.headers.get("etag");
  if (response.status !== 200 || etag === null) throw new Error(`GET ${url} gave ${response.status} without an ETag`);
  return etag;
}

type BenchCase = Pick<CaseReport, "name" | "path" | "page" | "perPage" | "depth">;

/** A filter selecting about 9% of the bench's events (dataset.ts cancels every 11th). */
const STATUS_FILTER = "&status=canceled";

/**
 * The cursor of the last page of a walk over `url` (per_page 100), found by walking it: cursors
 * are opaque (the api's are signed), so the walk is the only way to one at depth.
 */
async function lastCursor(url: string): Promise<string> {
  let cursor = "";
  for (;;) {
    const response = await fetch(`${url}?cursor=${encodeURIComponent(cursor)}&per_page=100`, {
      headers: { authorization: `Bearer ${BENCH_TOKEN}`, "accept-encoding": "identity" },
    });
    const body = (await response.json()) as { meta: { pagination: { next_cursor: string | null } } };
    if (response.status !== 200) throw new Error(`GET ${url} (cursor walk) gave ${response.status}`);
    const next = body.meta.pagination.next_cursor;
    if (next === null) return cursor;
    cursor = next;
  }
}

/**
 * Each server's query for a case: page mode as the case says; a status filter; cursor pages at the
 * start and at the end of a walk (the naive peer has no cursors: it serves the page at the same
 * depth by OFFSET, which is what a walk costs there).
 */
async function queriesFor(c: BenchCase, baseUrl: (name: ServerName) => string): Promise<Record<ServerName, string>> {
  const page = `?page=${c.page}&per_page=${c.perPage}`;
  const queries = Object.fromEntries(SERVER_NAMES.map((name) => [name, page])) as Record<ServerName, string>;
  if (c.depth === "filtered") for (const name of SERVER_NAMES) queries[name] = `${page}${STATUS_FILTER}`;
  if (c.depth === "cursor first" || c.depth === "cursor last") {
    for (const name of ["api", "floor"] as const) {
      const cursor = c.depth === "cursor first" ? "" : await lastCursor(`${baseUrl(name)}${c.path}`);
      queries[name] = `?cursor=${encodeURIComponent(cursor)}&per_page=${c.perPage}`;
    }
  }
  return queries;
}

function casesFor(n: number) {
  const list: BenchCase[] = [];
  for (const perPage of [100, 10]) {
    const last = Math.ceil(n / perPage);
    const middle = Math.max(1, Math.ceil(last / 2));
    list.push(
      { name: `events first page, per_page ${perPage}`, path: EVENTS, page: 1, perPage, depth: "first" },
      {
        name: `events middle page (${middle}), per_page ${perPage}`,
        path: EVENTS,
        page: middle,
        perPage,
        depth: "middle",
      },
      { name: `events last page (${last}), per_page ${perPage}`, path: EVENTS, page: last, perPage, depth: "last" },
    );
  }
  const lastGuides = Math.ceil(n / 100);
  list.push(
    {
      name: `guides last page (${lastGuides}), per_page 100`,
      path: GUIDES,
      page: lastGuides,
      perPage: 100,
      depth: "last",
    },
    { name: "events first page, 304 revalidation", path: EVENTS, page: 1, perPage: 100, depth: "304" },
    {
      name: "events first page, per_page 100, status=canceled",
      path: EVENTS,
      page: 1,
      perPage: 100,
      depth: "filtered",
    },
    {
      name: "events cursor walk, first page, per_page 100",
      path: EVENTS,
      page: 1,
      perPage: 100,
      depth: "cursor first",
    },
    {
      name: `events cursor walk, last page (naive: page ${Math.ceil(n / 100)}), per_page 100`,
      path: EVENTS,
      page: Math.ceil(n / 100),
      perPage: 100,
      depth: "cursor last",
    },
    // The first page again for each kind of client: one that takes br (and gzip), one that takes
    // gzip only (the first page above sends no Accept-Encoding: identity).
    {
      name: "events first page, per_page 100, Accept-Encoding: gzip, br",
      path: EVENTS,
      page: 1,
      perPage: 100,
      depth: "compressed",
    },
    {
      name: "events first page, per_page 100, Accept-Encoding: gzip",
      path: EVENTS,
      page: 1,
      perPage: 100,
      depth: "gzip",
    },
  );
  return list;
}

async function benchSize(n: number, settings: ReturnType<typeof parseArgs>): Promise<SizeReport> {
  const database = await createTestDatabase(`bench_${n}`);
  const servers = new Map<ServerName, RunningServer>();
  const monitor = createDatabase({ url: database.url, poolMax: 1 });
  try {
    const loadReport = await loadBenchData(database.url, n);
    log(
      `loaded N=${n}: large team's events in ${loadReport.largeTeamEventsSeconds.toFixed(1)} s ` +
        `(plain COPY of the same rows: ${loadReport.copyFloorEventsSeconds.toFixed(1)} s), ` +
        `its guides in ${loadReport.largeTeamGuidesSeconds.toFixed(1)} s, all in ${loadReport.totalSeconds.toFixed(1)} s`,
    );
    const nodeArgs = (name: string) =>
      settings.cpuProf
        ? ["--cpu-prof", `--cpu-prof-dir=${PROFILE_DIR}`, `--cpu-prof-name=${name}-${n}.cpuprofile`]
        : [];
    for (const name of SERVER_NAMES) {
      servers.set(
        name,
        await startServer(name, { databaseUrl: database.url, poolMax: settings.poolMax, nodeArgs: nodeArgs(name) }),
      );
    }
    const server = (name: ServerName) => servers.get(name) as RunningServer;
    const cases: CaseReport[] = [];
    const chosen = settings.calendarOnly ? [] : casesFor(n).filter((c) => settings.depths?.has(c.depth) ?? true);
    for (const c of chosen) {
      const queries = await queriesFor(c, (name) => server(name).baseUrl);
      const headers: Record<string, string> = {};
      if (c.depth === "304") headers["if-none-match"] = await etagOf(`${server("api").baseUrl}${c.path}${queries.api}`);
      if (c.depth === "compressed") headers["accept-encoding"] = "gzip, br";
      if (c.depth === "gzip") headers["accept-encoding"] = "gzip";
      const request = (name: ServerName) => ({
        url: `${server(name).baseUrl}${c.path}${queries[name]}`,
        headers: { authorization: `Bearer ${BENCH_TOKEN}`, ...headers },
      });
      for (const name of SERVER_NAMES) {
        const { url, headers } = request(name);
        await warmUp(url, headers, { connections: settings.connections, seconds: settings.warmupSeconds });
      }
      // Servers take turns within each round, in a rotating order, so that a busy spell of the
      // machine falls on all of them rather than on one.
      const rounds = Object.fromEntries(SERVER_NAMES.map((name) => [name, [] as CaseResult[]])) as Record<
        ServerName,
        CaseResult[]
      >;
      for (let round = 0; round < settings.rounds; round++) {
        for (let turn = 0; turn < SERVER_NAMES.length; turn++) {
          const name = SERVER_NAMES[(round + turn) % SERVER_NAMES.length] as ServerName;
          const { url, headers } = request(name);
          // The naive peer keeps no tags: its revalidation is a full 200 by design.
          rounds[name].push(
            await drive(url, headers, { ...settings, onlyNotModified: c.depth === "304" && name !== "naive" }, () =>
              startCpuWindow(server(name).pid, monitor.pool),
            ),
          );
        }
      }
      const report: CaseReport = {
        ...c,
        ...(c.depth === "filtered" || c.depth.startsWith("cursor") ? { queries } : {}),
        headers,
        servers: {
          api: summarize(rounds.api),
          floor: summarize(rounds.floor),
          naive: summarize(rounds.naive),
        },
        throughputRatio: spreadOf(
          rounds.api.map((r, i) => r.requestsPerSecond / (rounds.floor[i]?.requestsPerSecond ?? Number.NaN)),
        ),
      };
      const { api, floor, naive } = report.servers;
      log(
        `N=${n} ${c.name}: req/s api ${api.requestsPerSecond.median.toFixed(0)}, floor ${floor.requestsPerSecond.median.toFixed(0)}, ` +
          `naive ${naive.requestsPerSecond.median.toFixed(0)}; api/floor ${report.throughputRatio.median.toFixed(2)} ` +
          `(${report.throughputRatio.min.toFixed(2)}-${report.throughputRatio.max.toFixed(2)}); ` +
          `CPU ms/req api ${api.serverCpuMsPerRequest.median.toFixed(2)}+pg ${api.postgresCpuMsPerRequest.median.toFixed(2)}, ` +
          `floor ${floor.serverCpuMsPerRequest.median.toFixed(2)}+pg ${floor.postgresCpuMsPerRequest.median.toFixed(2)}, ` +
          `naive ${naive.serverCpuMsPerRequest.median.toFixed(2)}+pg ${naive.postgresCpuMsPerRequest.median.toFixed(2)}; ` +
          `non-2xx ${api.bad}/${floor.bad}/${naive.bad}`,
      );
      cases.push(report);
    }
    // Measured after the throughput cases, whose pages its writes would otherwise invalidate.
    const sync = settings.calendarOnly ? undefined : await measureSyncCost(server("api").baseUrl, monitor.pool, 100);
    if (sync !== undefined)
      log(
        `N=${n} sync after ${sync.changes} changes: ${sync.sync.requests} requests, ${sync.sync.bytes} bytes, ` +
          `${sync.sync.seconds.toFixed(2)} s; full cursor walk: ${sync.walk.requests} requests, ${sync.walk.bytes} bytes, ` +
          `${sync.walk.seconds.toFixed(1)} s (${(sync.walk.bytes / sync.sync.bytes).toFixed(0)}x the bytes)`,
      );
    // Last: it adds 5,000 events to the large team.
    const calendar = await measureCalendar({ api: server("api"), floor: server("floor") }, monitor.pool, settings);
    for (const c of calendar) {
      const { api, floor } = c.servers;
      log(
        `N=${n} ${c.name}: req/s api ${api.requestsPerSecond.median.toFixed(0)}, floor ${floor.requestsPerSecond.median.toFixed(0)}; ` +
          `api/floor ${c.throughputRatio.median.toFixed(2)} (${c.throughputRatio.min.toFixed(2)}-${c.throughputRatio.max.toFixed(2)}); ` +
          `CPU ms/req api ${api.serverCpuMsPerRequest.median.toFixed(2)}+pg ${api.postgresCpuMsPerRequest.median.toFixed(2)}, ` +
          `floor ${floor.serverCpuMsPerRequest.median.toFixed(2)}+pg ${floor.postgresCpuMsPerRequest.median.toFixed(2)}; ` +
          `non-2xx ${api.bad}/${floor.bad}`,
      );
    }
    const peakRssMb = Object.fromEntries(SERVER_NAMES.map((name) => [name, server(name).peakRssMb()])) as Record<
      ServerName,
      number
    >;
    return { n, load: loadReport, peakRssMb, cases, ...(sync === undefined ? {} : { sync }), calendar };
  } finally {
    for (const running of servers.values()) await running.stop();
    await monitor.close();
    await database.drop();
  }
}

function chart(report: BenchReport): string {
  const depths = ["first", "middle", "last"];
  const series = report.sizes.flatMap((size, i) =>
    (["api", "floor"] as const).map((server) => ({
      label: `${server}, N=${size.n.toLocaleString("en-US")}`,
      dashed: server === "floor",
      color: COLORS[i % COLORS.length] as string,
      points: size.cases
        .filter((c) => c.path === EVENTS && c.perPage === 100 && depths.includes(c.depth))
        .map((c) => ({ depth: c.depth, p99Ms: c.servers[server].p99Ms.median })),
    })),
  );
  return lineChartSvg("events, per_page 100: median p99 latency by page depth", depths, series);
}

function throughputChart(report: BenchReport): string {
  const groups = report.sizes.flatMap((size) =>
    size.cases.map((c) => ({
      label: `N=${size.n.toLocaleString("en-US")}: ${c.name.replace(", Accept-Encoding: gzip, br", ", gzip/br").replace(", Accept-Encoding: gzip", ", gzip")}`,
      bars: SERVER_NAMES.map((name) => c.servers[name].requestsPerSecond),
    })),
  );
  return barChartSvg(
    "requests per second by case: median, whisker min-max over the rounds",
    "requests per second",
    SERVER_NAMES.map((name) => ({ label: name, color: SERVER_COLORS[name] })),
    groups,
  );
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.includes("--mix")) return runMix(parseMixArgs(argv));
  if (argv.includes("--sync-push")) return runSyncPush(parseSyncPushArgs(argv));
  const settings = parseArgs(argv);
  const startedAt = new Date().toISOString();
  const loadBefore = load();
  // Quick runs (CI) go to an ignored folder, so they never overwrite the committed full results.
  const dir = path.join(REPO_ROOT, "bench/results", settings.quick ? "quick" : settings.calendarOnly ? "calendar" : "");
  mkdirSync(dir, { recursive: true });
  const stamp = startedAt.replace(/[:.]/g, "-");
  const sizes: SizeReport[] = [];
  let table = "";
  for (const n of settings.sizes) {
    sizes.push(await benchSize(n, settings));
    // Written after every size, so that a long run that is stopped keeps what it measured.
    const report: BenchReport = {
      startedAt,
      finishedAt: new Date().toISOString(),
      mode: settings.quick ? "quick" : "full",
      machine: { cpus: cpus().length, node: process.version, loadBefore, loadAfter: load() },
      settings: {
        connections: settings.connections,
        warmupSeconds: settings.warmupSeconds,
        seconds: settings.seconds,
        rounds: settings.rounds,
        poolMax: settings.poolMax,
      },
      sizes,
    };
    table = markdownTable(report);
    writeFileSync(path.join(dir, `${stamp}.json`), `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(path.join(dir, "latest.json"), `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(path.join(dir, "latest.md"), table);
    writeFileSync(path.join(dir, "latest.svg"), chart(report));
    writeFileSync(path.join(dir, "latest-throughput.svg"), throughputChart(report));
  }
  if (settings.cpuProf) {
    const summaries = settings.sizes.flatMap((n) =>
      SERVER_NAMES.map(
        (name) => `### ${name}, N=${n}\n\n${summarizeProfile(path.join(PROFILE_DIR, `${name}-${n}.cpuprofile`))}`,
      ),
    );
    writeFileSync(path.join(dir, "latest-profile.md"), summaries.join("\n"));
  }
  process.stdout.write(
    `\n${table}\nresults in ${path.relative(REPO_ROOT, dir) || "."}/latest.{json,md,svg} and latest-throughput.svg\n`,
  );
  // Speed is never asserted, but failed responses mean the benchmark measured something else.
  const bad = sizes
    .flatMap((size) => size.cases.flatMap((c) => SERVER_NAMES.map((name) => c.servers[name].bad)))
    .reduce((a, b) => a + b, 0);
  if (bad > 0)
    throw new Error(
      `${bad} responses failed: neither 2xx nor 304, or not 304 in the revalidation case (see the non-2xx column)`,
    );
}

runMain("bench", main);
