import net from "node:net";
import { createDatabase, type Database } from "@community/db";
import { databaseForSuite } from "@community/db/testing";
import { loadFixture } from "@community/fixtures";
import { ApiProcess, contractFixture, TOKENS } from "@community/fixtures/testing";

const IN_FLIGHT = 5;

/**
 * How the api process ended, or "hung" if it had not after `ms`. The bound is unref'd: once the
 * process has exited it is left to run out, and it must not hold the jest worker for that long.
 */
const exitWithin = (api: ApiProcess, ms: number) =>
  Promise.race([api.exited, new Promise((resolve) => setTimeout(() => resolve("hung"), ms).unref())]);

/** Resolves when `count` queries of the database wait for a lock. */
async function queriesWaitingOnLock(database: Database, name: string, count: number): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const { rows } = await database.pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock'",
      [name],
    );
    if ((rows[0]?.n ?? 0) >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`fewer than ${count} queries are waiting`);
}

/** Polls `check` every `delayMs` until it holds or `attempts` run out; returns its last answer. */
async function eventually<T>(
  check: () => T | Promise<T>,
  holds: (value: T) => boolean,
  attempts: number,
  delayMs: number,
) {
  let value = await check();
  for (let attempt = 1; attempt < attempts && !holds(value); attempt++) {
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    value = await check();
  }
  return value;
}

/** Holds an exclusive lock on `table` (every query on it waits) until the returned release. */
async function lockTable(url: string, table: string): Promise<() => Promise<void>> {
  const locker = createDatabase({ url, poolMax: 1 });
  const blocker = await locker.pool.connect();
  await blocker.query("BEGIN");
  await blocker.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
  return async () => {
    await blocker.query("ROLLBACK");
    blocker.release();
    await locker.close();
  };
}

const connects = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });

describe("graceful shutdown of the compiled server", () => {
  // One connection, so that the only test session in pg_stat_activity is the one asking.
  const testDb = databaseForSuite("shutdown", 1);

  beforeAll(async () => {
    await loadFixture(testDb.database.prisma, contractFixture());
  });

  const startApi = (env: Record<string, string> = {}) =>
    new ApiProcess({ DATABASE_URL: testDb.url, HOST: "127.0.0.1", PORT: "0", ...env });

  it("on SIGTERM stops accepting, finishes every request in flight with 200, closes the pool and exits 0", async () => {
    const api = startApi({ LOG_LEVEL: "info", SHUTDOWN_TIMEOUT_MS: "20000" });
    const port = await api.listening();
    const url = `http://127.0.0.1:${port}/v1/me/community/team/events`;
    expect((await fetch(url, { headers: { Authorization: `Bearer ${TOKENS.runner}` } })).status).toBe(200);

    // An exclusive lock on events holds every page query until the test lets go; the requests ask
    // for a page size not served before, which the page cache cannot answer without a page query.
    const unlock = await lockTable(testDb.url, "events");
    const inFlight = Array.from({ length: IN_FLIGHT }, () =>
      fetch(`${url}?per_page=50`, { headers: { Authorization: `Bearer ${TOKENS.runner}` } }).then(async (response) => {
        const body = await response.text();
        return response.status === 200
          ? { status: 200, items: (JSON.parse(body) as { guides: unknown[] }).guides.length }
          : { status: response.status, body };
      }),
    );
    try {
      await queriesWaitingOnLock(testDb.database, testDb.name, IN_FLIGHT);
      api.kill("SIGTERM");
      // Stopped accepting: new connections are refused while the old requests still wait.
      const refused = await eventually(async () => !(await connects(port)), Boolean, 100, 20);
      expect(refused).toBe(true);
      const received = () => api.entries().some((entry) => String(entry.msg).startsWith("SIGTERM received"));
      expect(await eventually(received, Boolean, 100, 20)).toBe(true);
    } finally {
      await unlock();
    }

    const results = await Promise.all(inFlight);
    expect(results).toEqual(Array.from({ length: IN_FLIGHT }, () => ({ status: 200, items: expect.any(Number) })));
    expect(results.every((result) => (result.items ?? 0) > 0)).toBe(true);
    expect(await api.exited).toBe(0);
    expect(api.entries().at(-1)).toMatchObject({ msg: "closed", context: "Bootstrap" });
    // The pool was closed: no session of the server (or the locker) is left once they end.
    const sessions = async () => {
      const { rows } = await testDb.database.pool.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
        [testDb.name],
      );
      return rows[0]?.n ?? -1;
    };
    expect(await eventually(sessions, (n) => n === 0, 40, 50)).toBe(0);
  }, 60_000);

  it("on SIGTERM with SHUTDOWN_DRAIN_DELAY_MS first answers readiness 503 while serving requests, then closes", async () => {
    const api = startApi({ LOG_LEVEL: "info", SHUTDOWN_DRAIN_DELAY_MS: "1500" });
    const port = await api.listening();
    const base = `http://127.0.0.1:${port}`;
    expect((await fetch(`${base}/health/ready`)).status).toBe(200);
    const signalled = Date.now();
    api.kill("SIGTERM");

    const ready = await eventually(
      () => fetch(`${base}/health/ready`),
      (answer) => answer.status !== 200,
      51,
      10,
    );
    expect(ready.status).toBe(503);
    expect(ready.headers.get("content-type")).toBe("application/problem+json; charset=utf-8");
    expect(ready.headers.get("retry-after")).toBe("5");
    expect(await ready.json()).toMatchObject({
      type: expect.stringMatching(/\/unavailable$/),
      checks: { shutdown: { status: "down", message: "the server is shutting down" } },
    });
    // Still serving, on new connections too, while the balancer takes the instance out.
    const served = await fetch(`${base}/v1/me/community/team/events`, {
      headers: { Authorization: `Bearer ${TOKENS.runner}`, Connection: "close" },
    });
    expect(served.status).toBe(200);
    expect(Date.now() - signalled).toBeLessThan(1500);
    expect((await fetch(`${base}/health/live`)).status).toBe(200);

    expect(await api.exited).toBe(0);
    expect(Date.now() - signalled).toBeGreaterThanOrEqual(1500);
    const messages = api.entries().map((entry) => String(entry.msg));
    expect(messages).toContain(
      "not ready any more; serving requests for 1500 ms while load balancers take this instance out",
    );
    expect(messages.at(-1)).toBe("closed");
  }, 60_000);

  it("closes idle keep-alive connections after HTTP_KEEP_ALIVE_TIMEOUT_MS, not before", async () => {
    const api = startApi({ HTTP_KEEP_ALIVE_TIMEOUT_MS: "1500", HTTP_HEADERS_TIMEOUT_MS: "2000" });
    const port = await api.listening();
    try {
      const socket = net.connect(port, "127.0.0.1");
      const closedAt = new Promise<number>((resolve) => socket.once("close", () => resolve(Date.now())));
      socket.on("data", () => undefined);
      await new Promise((resolve) => socket.once("connect", resolve));
      socket.write("GET /health/live HTTP/1.1\r\nHost: localhost\r\n\r\n");
      const answered = await new Promise<number>((resolve) => socket.once("data", () => resolve(Date.now())));
      const idle = (await closedAt) - answered;
      expect(idle).toBeGreaterThanOrEqual(1400);
      expect(idle).toBeLessThan(4000);
    } finally {
      api.kill("SIGTERM");
      await api.exited;
    }
  }, 60_000);

  it("cuts requests still running after SHUTDOWN_TIMEOUT_MS and still exits 0", async () => {
    const api = startApi({ SHUTDOWN_TIMEOUT_MS: "300", DB_STATEMENT_TIMEOUT_MS: "1000" });
    const port = await api.listening();
    const unlock = await lockTable(testDb.url, "events");
    try {
      const stuck = fetch(`http://127.0.0.1:${port}/v1/me/community/team/events`, {
        headers: { Authorization: `Bearer ${TOKENS.runner}` },
      }).then(
        (response) => response.status,
        () => "connection closed",
      );
      await queriesWaitingOnLock(testDb.database, testDb.name, 1);
      api.kill("SIGTERM");
      // The lock is still held: only the shutdown deadline can end this request.
      expect(await stuck).toBe("connection closed");
      const exit = await exitWithin(api, 15_000);
      expect(exit).toBe(0);
      expect(api.entries().map((entry) => entry.msg)).toContain(
        "requests still running after 300 ms: closing their connections",
      );
    } finally {
      await unlock();
    }
  }, 60_000);

  it("waits for handlers whose client already left before closing the pool, and exits 0", async () => {
    const api = startApi({ LOG_LEVEL: "info" });
    const port = await api.listening();
    // Held at the token lookup: after it, each handler still needs a connection for its page.
    const unlock = await lockTable(testDb.url, "access_tokens");
    try {
      const abort = new AbortController();
      const gone = Array.from({ length: 3 }, () =>
        fetch(`http://127.0.0.1:${port}/v1/me/community/team/events`, {
          headers: { Authorization: `Bearer ${TOKENS.runner}` },
          signal: abort.signal,
        }).catch(() => "aborted"),
      );
      await queriesWaitingOnLock(testDb.database, testDb.name, 3);
      abort.abort();
      expect(await Promise.all(gone)).toEqual(["aborted", "aborted", "aborted"]);
      api.kill("SIGTERM");
      // The server has no connection left, but three handlers still wait for the database.
      await new Promise((resolve) => setTimeout(resolve, 500));
    } finally {
      await unlock();
    }
    const exit = await exitWithin(api, 20_000);
    expect(exit).toBe(0);
    const messages = api.entries().map((entry) => String(entry.msg));
    expect(messages.filter((msg) => /pool|unexpected failure|transaction/i.test(msg))).toEqual([]);
    expect(messages.at(-1)).toBe("closed");
  }, 60_000);

  it("writes its start-up logs as JSON lines when stdout is not a terminal", async () => {
    const api = startApi();
    await api.listening();
    api.kill("SIGTERM");
    expect(await api.exited).toBe(0);
    expect(api.stdout.filter((line) => line !== "").length).toBeGreaterThan(0);
    for (const line of api.stdout.filter((l) => l !== "")) expect(() => JSON.parse(line)).not.toThrow();
  }, 60_000);

  it.each([
    ["LOG_LEVEL", "loud"],
    ["RATE_LIMIT_MAX", "lots"],
    ["REDIS_URL", "localhost:6379"],
    ["CORS_ORIGINS", "*"],
  ])("refuses to start with a bad %s: a message naming it and a non-zero exit", async (name, value) => {
    const api = new ApiProcess({ DATABASE_URL: testDb.url, PORT: "0", [name]: value });
    expect(await api.exited).toBe(1);
    expect(api.stderr).toContain(`Cannot start: Invalid configuration:\n  - ${name} must`);
  });
});
