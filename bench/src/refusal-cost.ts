import autocannon from "autocannon";
import type { Pool } from "pg";
import { startCpuWindow, withCpuBench } from "./cpu";
import { BENCH_TOKEN } from "./load";
import { runMain } from "./run-main";
import { type RunningServer, startServer } from "./servers";

/**
 * What a refusal costs the api against a served page (issue 44, item 3), on a machine shared with
 * other work, so as ratios of the same run:
 * - server CPU per request (utime+stime of the process, as cpu-per-request.ts reads it) of a 200
 *   page, of a 401 for a made-up token, and of a 429 for a made-up token once the address's
 *   failed-authentication budget is spent; every made-up token is a new one, as in a flood;
 * - the latency of valid requests (their own token) from the same address, idle and then under a
 *   flood of `--flood` made-up tokens: p50 and p99, and the ratio.
 *
 *   node bench/dist/refusal-cost.js [--requests=2000] [--rounds=3] [--flood=5000]
 *   node bench/dist/refusal-cost.js --before=apps/api/dist-before/main.js   # another build beside it, same run
 */

const PAGE = "/v1/me/community/team/events?page=1&per_page=100";

function arg(name: string, fallback: number): number {
  const found = process.argv.find((a) => a.startsWith(`--${name}=`));
  return found === undefined ? fallback : Number(found.slice(name.length + 3));
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

let made = 0;
/** autocannon's request list: each request a new made-up token. */
const madeUpTokens = (path: string) => [
  {
    method: "GET" as const,
    path,
    setupRequest: (request: autocannon.Request) => {
      made += 1;
      return { ...request, headers: { ...request.headers, authorization: `Bearer made-up-${process.pid}-${made}` } };
    },
  },
];

function run(options: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(options, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

/** CPU of `server` per request over `requests` requests, and their statuses. */
async function cpuPerRequest(
  server: RunningServer,
  monitor: Pool,
  requests: number,
  made: boolean,
): Promise<{ ms: number; statuses: string }> {
  const url = `${server.baseUrl}${PAGE}`;
  const options: autocannon.Options = made
    ? { url, connections: 10, amount: requests, requests: madeUpTokens(PAGE) }
    : { url, connections: 10, amount: requests, headers: { authorization: `Bearer ${BENCH_TOKEN}` } };
  const stop = await startCpuWindow(server.pid, monitor);
  const result = await run(options);
  const { serverMs } = await stop();
  const statuses = Object.entries(result.statusCodeStats ?? {})
    .map(([code, stat]) => `${code}x${stat.count}`)
    .join(" ");
  return { ms: serverMs / requests, statuses };
}

/** p50 and p99 (ms) of valid requests at a steady pace, for 5 s or while a flood of `flood` made-up tokens runs. */
async function validLatency(
  server: RunningServer,
  flood: number,
): Promise<{ p50: number; p99: number; flood: string }> {
  const url = `${server.baseUrl}${PAGE}`;
  let instance: autocannon.Instance | undefined;
  const valid = new Promise<autocannon.Result>((resolve, reject) => {
    instance = autocannon(
      { url, connections: 2, duration: flood > 0 ? 120 : 5, headers: { authorization: `Bearer ${BENCH_TOKEN}` } },
      (error, result) => (error ? reject(error) : resolve(result)),
    ) as unknown as autocannon.Instance; // with a callback, autocannon returns its instance, not a promise
  });
  let floodLine = "none";
  if (flood > 0) {
    const started = performance.now();
    const result = await run({ url, connections: 20, amount: flood, requests: madeUpTokens(PAGE) });
    instance?.stop();
    const counts = Object.entries(result.statusCodeStats ?? {}).map(([code, stat]) => `${code}x${stat.count}`);
    floodLine = `${flood} made-up tokens in ${((performance.now() - started) / 1000).toFixed(1)} s (${counts.join(" ")})`;
  }
  const result = await valid;
  return { p50: result.latency.p50, p99: result.latency.p99, flood: floodLine };
}

/** A guarded api (budget 20 per hour) of this build, or of `script`. */
async function startGuarded(databaseUrl: string, script?: string): Promise<RunningServer> {
  const saved = process.env.BENCH_SCRIPT_API;
  if (script !== undefined) process.env.BENCH_SCRIPT_API = script;
  try {
    return await startServer("api", {
      databaseUrl,
      poolMax: 10,
      env: { AUTH_FAILURE_LIMIT: "20", AUTH_FAILURE_WINDOW_SECONDS: "3600" },
    });
  } finally {
    if (script !== undefined) {
      if (saved === undefined) delete process.env.BENCH_SCRIPT_API;
      else process.env.BENCH_SCRIPT_API = saved;
    }
  }
}

async function main(): Promise<void> {
  const requests = arg("requests", 2000);
  const rounds = arg("rounds", 3);
  const flood = arg("flood", 5000);
  const before = process.argv.find((a) => a.startsWith("--before="))?.slice("--before=".length);
  await withCpuBench("bench_refusal", 1000, async ({ url, monitor, servers }) => {
    // One api whose address has a budget it cannot spend (401s); guarded ones whose budget is 20 (429s).
    const open = await startServer("api", { databaseUrl: url, poolMax: 10, env: { AUTH_FAILURE_LIMIT: "0" } });
    servers.push(open);
    const guarded: Array<{ label: string; server: RunningServer }> = [
      { label: "this build", server: await startGuarded(url) },
    ];
    if (before !== undefined) guarded.push({ label: before, server: await startGuarded(url, before) });
    servers.push(...guarded.map((g) => g.server));
    // Warm-up: JIT, pools, the page cache; a guarded api learns the valid token, then spends its budget.
    for (const server of servers) {
      const url = `${server.baseUrl}${PAGE}`;
      await run({ url, connections: 10, amount: requests, headers: { authorization: `Bearer ${BENCH_TOKEN}` } });
      await run({ url, connections: 10, amount: requests, requests: madeUpTokens(PAGE) });
    }
    const unauthorized: number[] = [];
    const served = new Map<string, number[]>(guarded.map((g) => [g.label, []]));
    const refused = new Map<string, number[]>(guarded.map((g) => [g.label, []]));
    const statuses = new Set<string>();
    for (let round = 0; round < rounds; round++) {
      const no = await cpuPerRequest(open, monitor, requests, true);
      unauthorized.push(no.ms);
      statuses.add(`401: ${no.statuses}`);
      for (const { label, server } of guarded) {
        const ok = await cpuPerRequest(server, monitor, requests, false);
        const limited = await cpuPerRequest(server, monitor, requests, true);
        served.get(label)?.push(ok.ms);
        refused.get(label)?.push(limited.ms);
        statuses.add(`${label} 200 page: ${ok.statuses}`).add(`${label} 429: ${limited.statuses}`);
      }
    }
    const lines = [
      `server CPU per request, median of ${rounds} rounds of ${requests} (ratio to the same build's 200 page):`,
    ];
    const page = median(served.get("this build") ?? []);
    lines.push(
      `  401 (this build, budget off): ${median(unauthorized).toFixed(3)} ms (${(median(unauthorized) / page).toFixed(2)}x)`,
    );
    for (const { label } of guarded) {
      const ok = median(served.get(label) ?? []);
      const limited = median(refused.get(label) ?? []);
      lines.push(
        `  ${label}: 200 page ${ok.toFixed(3)} ms, 429 ${limited.toFixed(3)} ms (${(limited / ok).toFixed(2)}x)`,
      );
    }
    lines.push(`statuses seen: ${[...statuses].join("; ")}`);
    for (const { label, server } of guarded) {
      const idle = await validLatency(server, 0);
      const flooded = await validLatency(server, flood);
      lines.push(
        `${label}: valid requests from the flooding address: idle p50 ${idle.p50} ms p99 ${idle.p99} ms; ` +
          `under the flood p50 ${flooded.p50} ms p99 ${flooded.p99} ms (p99 ${(flooded.p99 / idle.p99).toFixed(2)}x idle); ` +
          `flood: ${flooded.flood}`,
      );
    }
    process.stdout.write(`\n${lines.join("\n")}\n`);
  });
}

runMain("refusal-cost", main);
