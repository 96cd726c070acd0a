import { randomBytes } from "node:crypto";
import { createDatabase } from "@community/db";
import { type TestDatabase } from "@community/db/testing";
import { ApiProcess, contractFixture, createLoadedTestDatabase, TOKENS } from "@community/fixtures/testing";
import { reportFault, timed } from "../testing/fault-report";

const EVENTS = "/v1/me/community/team/events";
const FLOOD = 5_000;
const CONCURRENCY = 50;
const QUIET_REQUESTS = 300;
/** The shipped default of AUTH_FAILURE_LIMIT: the api runs with its defaults. */
const BUDGET = 20;
const ATTACKER = "203.0.113.9";
const CALLER = "198.51.100.7";

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))] ?? 0;

/** Index scans of access_tokens so far: one per token lookup (its primary key finds the token). */
async function tokenLookups(url: string): Promise<number> {
  // A connection of its own each time: statistics are read once per transaction.
  const database = createDatabase({ url, poolMax: 1 });
  try {
    const { rows } = await database.pool.query<{ scans: string }>(
      "SELECT (coalesce(idx_scan, 0) + seq_scan)::text AS scans FROM pg_stat_user_tables WHERE relname = 'access_tokens'",
    );
    return Number(rows[0]?.scans ?? 0);
  } finally {
    await database.close();
  }
}

/** The statistics once every backend has reported them (a backend flushes its own when it exits). */
async function settledLookups(url: string): Promise<number> {
  let last = -1;
  let stableReads = 0;
  for (let attempt = 0; attempt < 50 && stableReads < 3; attempt++) {
    const now = await tokenLookups(url);
    stableReads = now === last ? stableReads + 1 : 0;
    last = now;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return last;
}

/**
 * 5,000 distinct made-up bearer tokens from one address, 50 at a time, against the compiled api
 * on PostgreSQL with its default limits, while a legitimate caller from another address reads
 * its list: how many token lookups reach PostgreSQL, and what the caller's p99 becomes.
 */
describe("a flood of made-up tokens from one address", () => {
  let testDb: TestDatabase;
  let api: ApiProcess;
  let baseUrl: string;
  /** Lookups before the api started (the fixture's own writes). */
  let before = 0;

  beforeAll(async () => {
    testDb = await createLoadedTestDatabase("token_flood", contractFixture());
    before = await settledLookups(testDb.url);
    api = new ApiProcess({
      DATABASE_URL: testDb.url,
      HOST: "127.0.0.1",
      PORT: "0",
      LOG_LEVEL: "info",
      TRUST_PROXY: "loopback",
      // The legitimate caller's own budget must not be what limits it here.
      RATE_LIMIT_MAX: "1000000",
    });
    baseUrl = `http://127.0.0.1:${await api.listening()}`;
  }, 120_000);

  afterAll(async () => {
    api?.kill("SIGTERM");
    await api?.exited;
    await testDb?.drop();
  });

  const read = (token: string, address: string) =>
    fetch(`${baseUrl}${EVENTS}`, { headers: { authorization: `Bearer ${token}`, "x-forwarded-for": address } });

  async function caller(until: () => boolean, atLeast = 0): Promise<{ ms: number; status: number }[]> {
    const results: { ms: number; status: number }[] = [];
    while (!until() || results.length < atLeast) {
      const { ms, value } = await timed(async () => {
        const response = await read(TOKENS.runner, CALLER);
        await response.arrayBuffer();
        return response.status;
      });
      results.push({ ms, status: value });
    }
    return results;
  }

  it("costs the database no more lookups than the address's budget, and the caller little", async () => {
    const quiet = await caller(() => true, QUIET_REQUESTS);

    let done = false;
    const started = performance.now();
    let floodMs = 0;
    const statuses: number[] = [];
    let retryAfterMissing = 0;
    let next = 0;
    const flood = Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < FLOOD) {
          next += 1;
          const response = await read(randomBytes(24).toString("base64url"), ATTACKER);
          await response.arrayBuffer();
          statuses.push(response.status);
          if (response.status === 429 && response.headers.get("retry-after") === null) retryAfterMissing += 1;
        }
      }),
    ).finally(() => {
      floodMs = performance.now() - started;
      done = true;
    });
    const during = await caller(() => done);
    await flood;

    api.kill("SIGTERM");
    await api.exited;
    // Every lookup since the start, less the legitimate caller's own (one per request).
    const lookups = (await settledLookups(testDb.url)) - before - quiet.length - during.length;
    const count = (status: number) => statuses.filter((s) => s === status).length;
    const p99 = (results: { ms: number }[]) =>
      Math.round(
        percentile(
          results.map((r) => r.ms),
          99,
        ),
      );
    reportFault(
      "made-up token flood",
      `${FLOOD} made-up tokens from one address at ${CONCURRENCY} concurrent in ${Math.round(floodMs)} ms: ` +
        `${count(401)} x 401, ${count(429)} x 429, ` +
        `${lookups} token lookups in PostgreSQL; a legitimate caller's p99 ${p99(quiet)} ms quiet, ${p99(during)} ms during the flood`,
    );
    expect(count(401) + count(429)).toBe(FLOOD);
    expect(retryAfterMissing).toBe(0);
    // The budget, the request that spends it, and the requests already in flight then.
    expect(lookups).toBeLessThanOrEqual(BUDGET + 1 + CONCURRENCY);
    expect([...quiet, ...during].filter((r) => r.status !== 200)).toEqual([]);
  }, 300_000);
});
