import { LARGE_TEAM_TOKEN, largeTeamFixture, type RunningApi, startCompiledApi } from "@community/fixtures/testing";
import { defined, imageCommand } from "./docker-files";

/**
 * What a request's objects cost the old generation. The image's CMD, with V8's --trace-gc-nvp
 * added, answers list requests ten at a time, and the bytes each young-generation collection
 * (scavenge) promotes to the old generation are read from V8's trace. With ten requests in flight
 * and dozens answered between two scavenges, a request's objects cannot live through two of them
 * unless something keeps them: what is promoted is what the api keeps alive past its requests,
 * and what full collections then have to clear. Keepers found before (bench/results/2026-11-history.md, "Young
 * garbage kept old"), each a closure set on an object made per request: Prisma's query promise and
 * passport's per-request strategy object. Patches of both kept this under 0.2 MB; they were
 * dropped for Prisma 7 and passport as published (docs/decisions.md, "Prisma 7 as published"),
 * so the bounds below hold today's figures with room, and catch a new keeper on top of those.
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

describe("young garbage: what a request's objects promote, bounded", () => {
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

  // Measured with Prisma 7 and passport as published: 1.9 MB (nearly every row of every page, as
  // with Prisma 6.19's promise unpatched); 0.15-0.2 MB with the patches.
  it("promotes a median of under 2.5 MB per scavenge while it reads pages of 100 from PostgreSQL", async () => {
    expect(await promotedWhile(1_200, {}, 200)).toBeLessThan(2.5 * 1024 * 1024);
  }, 180_000);

  // A revalidation is the token lookup and a 304: mostly what passport and the lookup make.
  // Measured as published: 0.99 MB (1.0 MB with passport's keeper alone, 0.2 MB with the patches).
  it("promotes a median of under 1.5 MB per scavenge while it answers revalidations with 304", async () => {
    const etag = defined(
      (
        await fetch(`${running.baseUrl}${PAGE}`, { headers: { Authorization: `Bearer ${LARGE_TEAM_TOKEN}` } })
      ).headers.get("etag"),
      "an ETag",
    );
    expect(await promotedWhile(6_000, { "If-None-Match": etag }, 304)).toBeLessThan(1.5 * 1024 * 1024);
  }, 180_000);
});
