import { request as httpRequest } from "node:http";
import autocannon from "autocannon";
import { startCpuWindow, withCpuBench } from "./cpu";
import { BENCH_TOKEN } from "./load";
import { runMain } from "./run-main";
import { type RunningServer, startServer } from "./servers";

/**
 * CPU per request of the api and the floor, and of the PostgreSQL backends serving each, on a
 * machine shared with other work: throughput there says more about the neighbours than about the
 * server, while the CPU time a process spends per request does not. For each case, each round
 * sends the same number of requests to the api then the floor (interleaved) and reads utime+stime
 * of the server process and of its database backends from /proc before and after; the report
 * gives the median over the rounds.
 *
 *   node bench/dist/cpu-per-request.js [--n=1000] [--requests=2000] [--rounds=3] [--only=<a case's name, or part of names>]
 *   PAGE_CACHE_BYTES=0 node bench/dist/cpu-per-request.js   # the api without its page cache
 *   API_NODE_FLAGS="--max-semi-space-size=16" node bench/dist/cpu-per-request.js   # extra api flags
 *   node bench/dist/cpu-per-request.js --card   # the card floor too (card-floor-server.ts), page mode only
 *   node bench/dist/cpu-per-request.js --card=passport,dto,prisma/dto,prisma/   # card floor variants
 */

const EVENTS = "/v1/me/community/team/events";
const GUIDES = "/v1/me/community/team/guides";

interface Case {
  name: string;
  path: string;
  headers?: Record<string, string>;
  etag?: boolean;
}

function cases(n: number): Case[] {
  const last = Math.ceil(n / 100);
  return [
    { name: "events first page, per_page 100", path: `${EVENTS}?page=1&per_page=100` },
    {
      name: "events first page, per_page 100, gzip/br",
      path: `${EVENTS}?page=1&per_page=100`,
      headers: { "accept-encoding": "gzip, br" },
    },
    {
      name: `events middle page (${Math.ceil(last / 2)}), per_page 100`,
      path: `${EVENTS}?page=${Math.ceil(last / 2)}&per_page=100`,
    },
    { name: "events first page, per_page 10", path: `${EVENTS}?page=1&per_page=10` },
    { name: `guides last page (${last}), per_page 100`, path: `${GUIDES}?page=${last}&per_page=100` },
    { name: "events first page, 304 revalidation", path: `${EVENTS}?page=1&per_page=100`, etag: true },
  ];
}

function arg(name: string, fallback: number): number {
  const found = process.argv.find((a) => a.startsWith(`--${name}=`));
  return found === undefined ? fallback : Number(found.slice(name.length + 3));
}

/** The raw response of one GET: status, headers and body bytes (no decompression). */
function fetchRaw(url: string, headers: Record<string, string>) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; bytes: number }>(
    (resolve, reject) => {
      const req = httpRequest(url, { headers }, (response) => {
        let bytes = 0;
        response.on("data", (chunk: Buffer) => {
          bytes += chunk.length;
        });
        response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, bytes }));
      });
      req.on("error", reject);
      req.end();
    },
  );
}

interface Measured {
  label: string;
  server: RunningServer;
}

/**
 * `--card`: the card floor with all its parts; `--card=<parts>/<parts>/...`: one card floor per
 * set of parts (`CARD_FLOOR_PARTS`, e.g. `--card=passport,dto,prisma/dto,prisma/` for all, without
 * passport, and none).
 */
function cardVariants(): string[] {
  const flag = process.argv.find((a) => a === "--card" || a.startsWith("--card="));
  if (flag === undefined) return [];
  return flag === "--card" ? ["passport,dto,prisma"] : flag.slice("--card=".length).split("/");
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

async function main(): Promise<void> {
  const n = arg("n", 1000);
  const requests = arg("requests", 2000);
  const rounds = arg("rounds", 3);
  await withCpuBench(`bench_cpu_${n}`, n, async ({ url, monitor, servers }) => {
    const extra = (process.env.API_NODE_FLAGS ?? "").split(/\s+/).filter((f) => f !== "");
    const api = await startServer("api", { databaseUrl: url, poolMax: 10, nodeArgs: extra });
    servers.push(api);
    const floor = await startServer("floor", { databaseUrl: url, poolMax: 10 });
    servers.push(floor);
    const measured: Measured[] = [
      { label: "api", server: api },
      { label: "floor", server: floor },
    ];
    // The card floor (card-floor-server.ts): the card's parts around the floor's work, in as many
    // variants as asked, each in the rotation beside the api and the floor.
    for (const parts of cardVariants()) {
      const card = await startServer("card", {
        databaseUrl: url,
        poolMax: 10,
        env: { CARD_FLOOR_PARTS: parts },
      });
      servers.push(card);
      measured.push({ label: `card[${parts || "none"}]`, server: card });
    }
    const lines: string[] = [];
    process.stderr.write(`api flags: ${extra.join(" ") || "(image's)"}\n`);
    const only = process.argv.find((a) => a.startsWith("--only="))?.slice("--only=".length);
    // a case named exactly, else every case whose name contains it ("per_page 10" is in "per_page 100")
    const all = cases(n);
    const exact = all.filter((c) => c.name === only);
    const chosen = exact.length > 0 ? exact : all.filter((c) => only === undefined || c.name.includes(only));
    for (const c of chosen) {
      const cpu = new Map<string, number[]>(measured.map((m) => [m.label, []]));
      const pg = new Map<string, number[]>(measured.map((m) => [m.label, []]));
      const rates = new Map<string, number[]>(measured.map((m) => [m.label, []]));
      const bytes = new Map<string, number>();
      for (let round = 0; round < rounds; round++) {
        for (const { label, server } of measured) {
          const url = `${server.baseUrl}${c.path}`;
          const headers: Record<string, string> = { authorization: `Bearer ${BENCH_TOKEN}`, ...c.headers };
          const first = await fetchRaw(url, headers);
          bytes.set(label, first.bytes);
          if (c.etag) headers["if-none-match"] = String(first.headers.etag);
          // warm-up: JIT, pool connections, caches
          await autocannon({ url, headers, connections: 10, amount: Math.ceil(requests / 4) });
          const stop = await startCpuWindow(server.pid, monitor);
          const started = performance.now();
          let last = started;
          const result = await new Promise<autocannon.Result>((resolve, reject) => {
            const run = autocannon({ url, headers, connections: 10, amount: requests }, (error, done) =>
              error ? reject(error) : resolve(done),
            );
            run.on("response", () => {
              last = performance.now();
            });
          });
          const seconds = (last - started) / 1000;
          const { serverMs, postgresMs } = await stop();
          const ok = result["2xx"] + result["3xx"];
          if (ok !== requests) throw new Error(`${c.name} on ${label}: ${ok} of ${requests} succeeded`);
          cpu.get(label)?.push(serverMs / requests);
          pg.get(label)?.push(postgresMs / requests);
          // requests over the time to the last response: autocannon ends a run of `amount`
          // requests on its next one-second tick, so its own figures made 2,000 requests take
          // 2 or 3 whole seconds (0.67 was 3 s against 2 s, not a measurement)
          rates.get(label)?.push(requests / seconds);
        }
      }
      const of = (values: Map<string, number[]>, label: string) => median(values.get(label) ?? []);
      const line =
        `${c.name}: CPU/request api ${of(cpu, "api").toFixed(2)} ms, floor ${of(cpu, "floor").toFixed(2)} ms ` +
        `(api/floor ${(of(cpu, "api") / of(cpu, "floor")).toFixed(2)}); ` +
        `PostgreSQL CPU/request api ${of(pg, "api").toFixed(2)} ms, floor ${of(pg, "floor").toFixed(2)} ms; ` +
        `req/s api ${of(rates, "api").toFixed(0)}, floor ${of(rates, "floor").toFixed(0)} ` +
        `(api/floor ${(of(rates, "api") / of(rates, "floor")).toFixed(2)}); ` +
        `body bytes api ${bytes.get("api")}, floor ${bytes.get("floor")}`;
      const cards = measured
        .filter((m) => m.server.name === "card")
        .map(
          ({ label }) =>
            `  ${label}: CPU/request ${of(cpu, label).toFixed(2)} ms (x floor ${(of(cpu, label) / of(cpu, "floor")).toFixed(2)}, ` +
            `api/this ${(of(cpu, "api") / of(cpu, label)).toFixed(2)}); PostgreSQL ${of(pg, label).toFixed(2)} ms; ` +
            `req/s ${of(rates, label).toFixed(0)} (x floor ${(of(rates, label) / of(rates, "floor")).toFixed(2)}); ` +
            `body bytes ${bytes.get(label)}`,
        );
      for (const text of [line, ...cards]) {
        process.stderr.write(`${text}\n`);
        lines.push(text);
      }
    }
    lines.push(`peak RSS: ${measured.map((m) => `${m.label} ${m.server.peakRssMb().toFixed(0)} MB`).join(", ")}`);
    process.stdout.write(`\n${lines.join("\n")}\n`);
  });
}

runMain("cpu-per-request", main);
