import { LARGE_TEAM_TOKEN, largeTeamFixture, type RunningApi, startCompiledApi } from "@community/fixtures/testing";
import { defined, imageCommand } from "./docker-files";

/**
 * A request's objects die young. The image's CMD, with V8's --trace-gc-nvp added, answers list
 * requests ten at a time, and the bytes each young-generation collection (scavenge) promotes to the
 * old generation are read from V8's trace. With ten requests in flight and dozens answered between
 * two scavenges, a request's objects cannot live through two of them unless something keeps them:
 * what is promoted is what the api keeps alive past its requests, and what full collections then
 * have to clear. Three keepers were found (bench/results/2026-11-history.md, "Young garbage kept old"), each a
 * closure set on an object made per request: Prisma's query promise, the promise form of pg's
 * query in the naming of prepared statements, and passport's per-request strategy object.
 */
const cmd = imageCommand();

const PAGE = "/v1/me/community/team/events?page=1&per_page=100";
const IN_FLIGHT = 10;

const promotedPerScavenge = (lines: readonly string[]) =>
  lines.flatMap((line) => {
    if (!/\bgc=s\b/.test(line)) return [];
    const promoted = /\bpromoted=(\d+)/.exec(line)?.[1];
    return promoted === undefined ? [] : [Number(promoted)];
  });

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

describe("young garbage: a request's objects are not promoted past it", () => {
  let running: RunningApi;

  beforeAll(async () => {
    expect(cmd[0]).toBe("node");
    running = await startCompiledApi(
      "young_garbage",
      largeTeamFixture(),
      {
        // Every page read from PostgreSQL; a limiter that the load never reaches.
        PAGE_CACHE_BYTES: "0",
        RATE_LIMIT_MAX: "10000000",
        NODE_ENV: "production",
        CURSOR_SECRET: "young-garbage-cursor-secret-0123456789",
      },
      [...cmd.slice(1, -1), "--trace-gc-nvp", ...cmd.slice(-1)],
    );
  }, 120_000);

  afterAll(async () => {
    await running?.stop();
  });

  async function load(requests: number, headers: Record<string, string>, status: number): Promise<void> {
    let sent = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (sent < requests) {
          sent += 1;
          const response = await fetch(`${running.baseUrl}${PAGE}`, {
            headers: { Authorization: `Bearer ${LARGE_TEAM_TOKEN}`, ...headers },
          });
          expect(response.status).toBe(status);
          await response.arrayBuffer();
        }
      }),
    );
  }

  /** The median bytes promoted per scavenge while `requests` are answered, after a warm-up. */
  async function promotedWhile(requests: number, headers: Record<string, string>, status: number) {
    await load(requests / 4, headers, status);
    const from = running.api.stdout.length;
    await load(requests, headers, status);
    const promoted = promotedPerScavenge(running.api.stdout.slice(from));
    if (process.env.YOUNG_GARBAGE_REPORT) console.log(`median ${median(promoted)} B over ${promoted.length} scavenges`);
    // The window must hold enough scavenges for a median to mean something.
    expect(promoted.length).toBeGreaterThanOrEqual(10);
    return median(promoted);
  }

  // Measured: 1.7-1.9 MB with Prisma's or the naming's keeper put back (nearly every row of every
  // page), 0.5 MB with passport's; 0.15-0.2 MB without them.
  it("promotes a median of under 768 KB per scavenge while it reads pages of 100 from PostgreSQL", async () => {
    expect(await promotedWhile(1_200, {}, 200)).toBeLessThan(768 * 1024);
  }, 180_000);

  // A revalidation is the token lookup and a 304: mostly what passport and the lookup make.
  // Measured: 1.0 MB with passport's keeper put back, 0.2 MB without.
  it("promotes a median of under 512 KB per scavenge while it answers revalidations with 304", async () => {
    const etag = defined(
      (
        await fetch(`${running.baseUrl}${PAGE}`, { headers: { Authorization: `Bearer ${LARGE_TEAM_TOKEN}` } })
      ).headers.get("etag"),
      "an ETag",
    );
    expect(await promotedWhile(6_000, { "If-None-Match": etag }, 304)).toBeLessThan(512 * 1024);
  }, 180_000);
});
