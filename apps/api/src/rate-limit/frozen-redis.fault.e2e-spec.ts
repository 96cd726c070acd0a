import { contractFixture, TOKENS } from "@community/fixtures/testing";
import request from "supertest";
import { PrivateRedis } from "../redis/testing/redis-server";
import { expectProblem } from "../testing/contract-assertions";
import { type E2eApp, startE2eApp } from "../testing/e2e-app";
import { reportFault, timed } from "../testing/fault-report";
import { LogSpy } from "../testing/log-spy";

const EVENTS = "/v1/me/community/team/events";
const REQUESTS = 50;
const CONCURRENCY = 50;
/** How long the test keeps Redis frozen at most: a request that waits on Redis waits this long. */
const FREEZE_MS = 6_000;
/**
 * Bound on a request's latency with Redis frozen: a third of the freeze, so a request that waited
 * for Redis fails it whatever the machine's load, while one that gave up after
 * REDIS_COMMAND_TIMEOUT_MS (100 ms by default) passes even on a busy machine.
 */
const LIMIT_MS = 2_000;

const bearer = { Authorization: `Bearer ${TOKENS.runner}` };

/** `count` GETs of `path`, `concurrency` at a time; each one's status and latency. */
async function burst(e2e: E2eApp, path: string, count: number, concurrency: number) {
  const results: Array<{ status: number; ms: number }> = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next += 1;
        const { ms, value } = await timed(() => request(e2e.server).get(path).set(bearer).timeout(20_000));
        results.push({ status: value.status, ms });
      }
    }),
  );
  return results;
}

/** Redis stops answering (SIGSTOP) without closing its connections: the limiter must not wait for it. */
describe("rate limiting while Redis is frozen", () => {
  let logs: LogSpy;
  let redis: PrivateRedis;
  let e2e: E2eApp;
  let thawTimer: NodeJS.Timeout | undefined;

  const freeze = () => {
    redis.freeze();
    // Whatever the outcome, Redis answers again after FREEZE_MS, so a stalled request ends.
    thawTimer = setTimeout(() => redis.thaw(), FREEZE_MS);
  };
  const thaw = () => {
    clearTimeout(thawTimer);
    redis.thaw();
  };

  beforeAll(async () => {
    logs = new LogSpy();
    redis = await PrivateRedis.start();
    e2e = await startE2eApp("postgres", contractFixture(), {
      env: { RATE_LIMIT_MAX: "100000", REDIS_URL: redis.url },
    });
  });

  afterAll(async () => {
    thaw();
    await e2e?.close();
    await redis?.stop();
    logs?.restore();
  });

  it("serves every list request within a bounded time, unlimited, and limits again once Redis answers", async () => {
    expect((await request(e2e.server).get(EVENTS).set(bearer)).headers["ratelimit-policy"]).toBeDefined();
    const newLines = logs.mark();
    freeze();
    let results: Array<{ status: number; ms: number }>;
    try {
      results = await burst(e2e, EVENTS, REQUESTS, CONCURRENCY);
    } finally {
      thaw();
    }
    const slow = results.filter((result) => result.ms > LIMIT_MS).length;
    const slowest = Math.max(...results.map((result) => result.ms));
    reportFault(
      "frozen redis",
      `${slow} of ${REQUESTS} requests waited > ${LIMIT_MS} ms (slowest ${Math.round(slowest)} ms; Redis frozen up to ${FREEZE_MS} ms)`,
    );
    expect(results.map((result) => result.status)).toEqual(Array(REQUESTS).fill(200));
    expect(slow).toBe(0);

    // Served again with limits once Redis answers; the outage was logged once, not per request.
    let policy: string | undefined;
    for (let attempt = 0; attempt < 20 && policy === undefined; attempt++) {
      policy = (await request(e2e.server).get(EVENTS).set(bearer)).headers["ratelimit-policy"];
      if (policy === undefined) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(policy).toBeDefined();
    // One warning when Redis stopped answering and one line when it answered again.
    expect(newLines().map((line) => line.level)).toEqual(["warn", "log"]);
  }, 30_000);

  it("keeps readiness at 200 with the redis check degraded, answered within a bounded time", async () => {
    freeze();
    try {
      const { ms, value: response } = await timed(() => request(e2e.server).get("/health/ready").timeout(20_000));
      expect(ms).toBeLessThan(LIMIT_MS);
      expect(response.status).toBe(200);
      expect(response.body.details.database).toEqual({ status: "up" });
      expect(response.body.details.redis).toMatchObject({ status: "up", state: "degraded" });
      const metrics = await request(e2e.server).get("/metrics");
      expect(metrics.text).toMatch(/^rate_limit_storage_up 0$/m);
      expect(metrics.text).toMatch(/^rate_limit_storage_failures_total [1-9]/m);
    } finally {
      thaw();
    }
    let redisCheck: unknown;
    for (let attempt = 0; attempt < 20; attempt++) {
      redisCheck = (await request(e2e.server).get("/health/ready")).body.details.redis;
      if ((redisCheck as { state?: string }).state === "ok") break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(redisCheck).toEqual({ status: "up", state: "ok" });
  }, 30_000);
});

/** REQUEST_TIMEOUT_MS counts from the request's arrival: a guard that waits is cut short too. */
describe("request timeout while a guard waits", () => {
  let redis: PrivateRedis;
  let e2e: E2eApp;

  beforeAll(async () => {
    redis = await PrivateRedis.start();
    e2e = await startE2eApp("postgres", contractFixture(), {
      // The limiter would wait 5 s for Redis: the request timeout must answer first.
      env: {
        RATE_LIMIT_MAX: "100000",
        REDIS_URL: redis.url,
        REDIS_COMMAND_TIMEOUT_MS: "5000",
        REQUEST_TIMEOUT_MS: "300",
      },
    });
  });

  afterAll(async () => {
    redis?.thaw();
    await e2e?.close();
    await redis?.stop();
  });

  it("answers 503 with Retry-After at REQUEST_TIMEOUT_MS while the rate-limit guard waits on Redis", async () => {
    redis.freeze();
    const thawTimer = setTimeout(() => redis.thaw(), FREEZE_MS);
    try {
      const { ms, value: response } = await timed(() => request(e2e.server).get(EVENTS).set(bearer).timeout(20_000));
      reportFault("request timeout in a guard", `503 after ${Math.round(ms)} ms (REQUEST_TIMEOUT_MS 300)`);
      expectProblem(response, 503, "unavailable");
      expect(response.headers["retry-after"]).toBe(String(e2e.config.retryAfterSeconds));
      expect(ms).toBeLessThan(LIMIT_MS + 300);
    } finally {
      clearTimeout(thawTimer);
      redis.thaw();
    }
  }, 30_000);
});
