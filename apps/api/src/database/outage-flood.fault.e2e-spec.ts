import { TOKENS } from "@community/fixtures/testing";
import request from "supertest";
import { expectProblem } from "../testing/contract-assertions";
import { type E2eApp, type ProxiedE2eApp, startE2eAppBehindProxy } from "../testing/e2e-app";
import { reportFault, timed } from "../testing/fault-report";
import { LogSpy } from "../testing/log-spy";

const EVENTS = "/v1/me/community/team/events";
const REQUESTS = 200;
const CONCURRENCY = 10;

/** `count` list requests, `concurrency` at a time: each one's response and latency. */
async function load(e2e: E2eApp, count: number, concurrency: number) {
  const results: Array<{ status: number; retryAfter: string | undefined; ms: number }> = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next += 1;
        const { ms, value } = await timed(() =>
          request(e2e.server).get(EVENTS).set("Authorization", `Bearer ${TOKENS.runner}`).timeout(30_000),
        );
        results.push({ status: value.status, retryAfter: value.headers["retry-after"], ms });
      }
    }),
  );
  return results;
}

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))] ?? 0;

/**
 * The database goes away under load: once it is known to be down, requests are refused at once
 * with 503 and Retry-After (the circuit breaker), the log gets the changes of state and periodic
 * counts rather than lines per request, and the pool stops trying a new connection per request.
 */
describe("database outage under load", () => {
  let logs: LogSpy;
  let e2e: ProxiedE2eApp;

  beforeAll(async () => {
    logs = new LogSpy();
    // A short statement timeout, so that a frozen server is noticed within the test's seconds.
    e2e = await startE2eAppBehindProxy({ DB_STATEMENT_TIMEOUT_MS: "1000", DB_BREAKER_PROBE_MS: "200" });
  });

  afterAll(async () => {
    await e2e?.close();
    logs?.restore();
  });

  const recover = async () => {
    let status = 0;
    for (let attempt = 0; attempt < 40 && status !== 200; attempt++) {
      status = (await request(e2e.server).get(EVENTS).set("Authorization", `Bearer ${TOKENS.runner}`)).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return status;
  };

  it("answers a stopped database with 503 + Retry-After at once, in a handful of log lines, and recovers", async () => {
    expect((await load(e2e, 5, 1)).map((result) => result.status)).toEqual([200, 200, 200, 200, 200]);
    const newLines = logs.mark();
    await e2e.proxy.cut();
    const { ms, value: results } = await timed(() => load(e2e, REQUESTS, CONCURRENCY));
    const lines = newLines();
    const metrics = (await request(e2e.server).get("/metrics")).text;
    reportFault(
      "stopped database",
      `${REQUESTS} requests in ${Math.round(ms)} ms (p99 ${Math.round(
        percentile(
          results.map((r) => r.ms),
          99,
        ),
      )} ms) wrote ${lines.length} log lines`,
    );
    for (const result of results) {
      expect(result.status).toBe(503);
      expect(result.retryAfter).toBe(String(e2e.config.retryAfterSeconds));
    }
    // Before the breaker opens, each failed request logs one line; after, only the breaker does.
    expect(lines.length).toBeLessThanOrEqual(e2e.config.dbBreakerThreshold + CONCURRENCY + 2);
    expect(lines.filter((line) => line.stack)).toEqual([]);
    expect(metrics).toMatch(/^db_circuit_open 1$/m);
    expect(Number(/^db_circuit_refused_total (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThan(REQUESTS / 2);
    expectProblem(
      await request(e2e.server).get(EVENTS).set("Authorization", `Bearer ${TOKENS.runner}`),
      503,
      "unavailable",
    );

    await e2e.proxy.start();
    expect(await recover()).toBe(200);
    expect((await request(e2e.server).get("/metrics")).text).toMatch(/^db_circuit_open 0$/m);
    expect(logs.lines.some((line) => line.level === "log" && /answers again/.test(line.message))).toBe(true);
  }, 60_000);

  it("stops knocking on a frozen database: few connection attempts and a low p99 once it is known to be down", async () => {
    expect(await recover()).toBe(200);
    e2e.proxy.freeze();
    const attemptsBefore = e2e.proxy.accepted;
    let results: Array<{ status: number; ms: number }>;
    try {
      // The first requests find out (they wait for the statement timeout); the rest are refused.
      results = await load(e2e, REQUESTS, CONCURRENCY);
    } finally {
      e2e.proxy.thaw();
    }
    const attempts = e2e.proxy.accepted - attemptsBefore;
    const p99 = percentile(
      results.map((result) => result.ms),
      99,
    );
    const p90 = percentile(
      results.map((result) => result.ms),
      90,
    );
    reportFault(
      "frozen database",
      `${REQUESTS} requests: p90 ${Math.round(p90)} ms, p99 ${Math.round(p99)} ms, ${attempts} connection attempts`,
    );
    expect(results.every((result) => result.status === 503)).toBe(true);
    // Without the breaker every request waits at least DB_CONNECT_TIMEOUT_MS (1 s here).
    expect(p90).toBeLessThan(500);
    expect(attempts).toBeLessThan(REQUESTS / 10);
    expect(await recover()).toBe(200);
  }, 60_000);
});
