import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import path from "node:path";
import { createTestDatabase } from "@community/db/testing";
import { lineChartSvg } from "./chart";
import { drive } from "./drive";
import { BENCH_TOKEN, loadBenchData } from "./load";
import { summarizeProfile } from "./profile-summary";
import type { BenchReport, CaseReport, SizeReport } from "./report";
import { markdownTable } from "./report";
import { REPO_ROOT, type RunningServer, startServer } from "./servers";

const EVENTS = "/v1/me/community/team/events";
const GUIDES = "/v1/me/community/team/guides";
const PROFILE_DIR = path.join(REPO_ROOT, "bench/results/profiles");
const COLORS = ["#1f77b4", "#d62728", "#2ca02c"];

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
  const unknown = argv.filter((a) => a !== "--quick" && a !== "--cpu-prof" && !a.startsWith("--sizes="));
  if (unknown.length > 0)
    throw new Error(`unknown argument(s): ${unknown.join(" ")} (use --quick, --cpu-prof, --sizes=1000,100000)`);
  return {
    quick,
    sizes,
    cpuProf,
    connections: Number(process.env.BENCH_CONNECTIONS ?? 10),
    warmupSeconds: quick ? 1 : 3,
    seconds: quick ? 2 : 10,
    poolMax: Number(process.env.DB_POOL_MAX ?? 10),
  };
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
const log = (message: string) => process.stderr.write(`${message}\n`);

async function etagOf(url: string): Promise<string> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${BENCH_TOKEN}` } });
  await response.arrayBuffer();
  const etag = response.headers.get("etag");
  if (response.status !== 200 || etag === null) throw new Error(`GET ${url} gave ${response.status} without an ETag`);
  return etag;
}

function casesFor(n: number) {
  const list: Array<{ name: string; path: string; page: number; perPage: number; depth: CaseReport["depth"] }> = [];
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
  );
  return list;
}

async function benchSize(n: number, settings: ReturnType<typeof parseArgs>): Promise<SizeReport> {
  const database = await createTestDatabase(`bench_${n}`);
  const servers: RunningServer[] = [];
  try {
    const loadReport = await loadBenchData(database.url, n);
    log(
      `loaded N=${n}: large team's events in ${loadReport.largeTeamEventsSeconds.toFixed(1)} s, its guides in ${loadReport.largeTeamGuidesSeconds.toFixed(1)} s, all in ${loadReport.totalSeconds.toFixed(1)} s`,
    );
    const nodeArgs = (name: string) =>
      settings.cpuProf
        ? ["--cpu-prof", `--cpu-prof-dir=${PROFILE_DIR}`, `--cpu-prof-name=${name}-${n}.cpuprofile`]
        : [];
    const api = await startServer("api", {
      databaseUrl: database.url,
      poolMax: settings.poolMax,
      nodeArgs: nodeArgs("api"),
    });
    servers.push(api);
    const floor = await startServer("floor", {
      databaseUrl: database.url,
      poolMax: settings.poolMax,
      nodeArgs: nodeArgs("floor"),
    });
    servers.push(floor);
    const cases: CaseReport[] = [];
    for (const c of casesFor(n)) {
      const query = `?page=${c.page}&per_page=${c.perPage}`;
      const results = [];
      for (const server of [api, floor]) {
        const url = `${server.baseUrl}${c.path}${query}`;
        const headers: Record<string, string> = { authorization: `Bearer ${BENCH_TOKEN}` };
        if (c.depth === "304") headers["if-none-match"] = await etagOf(url);
        results.push(await drive(url, headers, settings));
      }
      const [apiResult, floorResult] = results as [(typeof results)[0], (typeof results)[0]];
      const report: CaseReport = {
        ...c,
        api: apiResult,
        floor: floorResult,
        throughputRatio: apiResult.requestsPerSecond / floorResult.requestsPerSecond,
        p99Ratio: apiResult.p99Ms / floorResult.p99Ms,
      };
      log(
        `N=${n} ${c.name}: api ${apiResult.requestsPerSecond.toFixed(0)} req/s p99 ${apiResult.p99Ms} ms, ` +
          `floor ${floorResult.requestsPerSecond.toFixed(0)} req/s p99 ${floorResult.p99Ms} ms, ` +
          `ratio ${report.throughputRatio.toFixed(2)}, non-2xx ${apiResult.bad}/${floorResult.bad}`,
      );
      cases.push(report);
    }
    return { n, load: loadReport, apiPeakRssMb: api.peakRssMb(), floorPeakRssMb: floor.peakRssMb(), cases };
  } finally {
    for (const server of servers) await server.stop();
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
        .filter((c) => c.path === EVENTS && c.perPage === 100 && c.depth !== "304")
        .map((c) => ({ depth: c.depth, p99Ms: c[server].p99Ms })),
    })),
  );
  return lineChartSvg("events, per_page 100: p99 latency by page depth", depths, series);
}

async function main(): Promise<void> {
  const settings = parseArgs(process.argv.slice(2));
  const startedAt = new Date().toISOString();
  const loadBefore = load();
  // Quick runs (CI) go to an ignored folder, so they never overwrite the committed full results.
  const dir = path.join(REPO_ROOT, "bench/results", settings.quick ? "quick" : "");
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
        poolMax: settings.poolMax,
      },
      sizes,
    };
    table = markdownTable(report);
    writeFileSync(path.join(dir, `${stamp}.json`), `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(path.join(dir, "latest.json"), `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(path.join(dir, "latest.md"), table);
    writeFileSync(path.join(dir, "latest.svg"), chart(report));
  }
  if (settings.cpuProf) {
    const summaries = settings.sizes.flatMap((n) =>
      ["api", "floor"].map(
        (name) => `### ${name}, N=${n}\n\n${summarizeProfile(path.join(PROFILE_DIR, `${name}-${n}.cpuprofile`))}`,
      ),
    );
    writeFileSync(path.join(dir, "latest-profile.md"), summaries.join("\n"));
  }
  process.stdout.write(`\n${table}\nresults in ${path.relative(REPO_ROOT, dir) || "."}/latest.{json,md,svg}\n`);
  // Speed is never asserted, but failed responses mean the benchmark measured something else.
  const bad = sizes.flatMap((size) => size.cases.flatMap((c) => [c.api.bad, c.floor.bad])).reduce((a, b) => a + b, 0);
  if (bad > 0) throw new Error(`${bad} responses were neither 2xx nor 304 (see the non-2xx column)`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
