import { createDatabase, type Database } from "@community/db";
import { contractFixture, TOKENS } from "@community/fixtures/testing";
import request from "supertest";
import { expectProblem } from "../testing/contract-assertions";
import { type E2eApp, startE2eApp } from "../testing/e2e-app";
import { reportFault, timed } from "../testing/fault-report";
import { LogSpy } from "../testing/log-spy";

const EVENTS = "/v1/me/community/team/events";
const REQUESTS = 12;
/** A page size no request asked for before: the page cache serves a page it has seen without reading events. */
let pageSize = 10;
const unservedPage = () => `${EVENTS}?per_page=${pageSize++}`;

/**
 * A table the list path reads is locked by another session (a migration, a manual LOCK): each
 * request gives up after the lock timeout with a 503 problem and Retry-After, one log line each
 * without a stack, and readiness reports the busy pool as saturated, not unreachable.
 */
describe("list requests behind a locked table", () => {
  let logs: LogSpy;
  let e2e: E2eApp;
  let lockerDb: Database;
  let locker: { query(sql: string): Promise<unknown>; release(): void };

  beforeAll(async () => {
    logs = new LogSpy();
    // The defaults of DB_LOCK_TIMEOUT_MS, DB_STATEMENT_TIMEOUT_MS and REQUEST_TIMEOUT_MS.
    e2e = await startE2eApp("postgres", contractFixture());
    // Another session, outside the app's pool.
    lockerDb = createDatabase({ url: e2e.url, poolMax: 1 });
    locker = await lockerDb.pool.connect();
  });

  afterAll(async () => {
    locker?.release();
    await lockerDb?.close();
    await e2e?.close();
    logs?.restore();
  });

  const lockAndRequest = async (table: string) => {
    await locker.query("BEGIN");
    await locker.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
    try {
      const path = unservedPage();
      const get = () => request(e2e.server).get(path).set("Authorization", `Bearer ${TOKENS.runner}`).timeout(30_000);
      return await Promise.all(Array.from({ length: REQUESTS }, () => timed(get)));
    } finally {
      await locker.query("ROLLBACK");
    }
  };

  it.each(["events", "access_tokens"])(
    "answers 503 with Retry-After, within the lock timeout, to requests waiting for a lock on %s",
    async (table) => {
      const newLines = logs.mark();
      const results = await lockAndRequest(table);
      const slowest = Math.max(...results.map((result) => result.ms));
      const statuses = [...new Set(results.map((result) => result.value.status))].join(", ");
      const lines = newLines();
      reportFault(
        `locked ${table}`,
        `${REQUESTS} requests answered ${statuses} in at most ${Math.round(slowest)} ms; ${lines.length} log lines, ${lines.filter((line) => line.stack).length} with a stack`,
      );
      for (const { value: response } of results) {
        expectProblem(response, 503, "unavailable");
        expect(response.headers["retry-after"]).toBe(String(e2e.config.retryAfterSeconds));
      }
      // The lock timeout (2 s by default) answers, well before the statement timeout (5 s).
      expect(slowest).toBeLessThan(e2e.config.dbStatementTimeoutMs);
      expect(lines.filter((line) => line.stack)).toEqual([]);
      expect(lines.length).toBeLessThanOrEqual(REQUESTS);
      expect((await request(e2e.server).get(EVENTS).set("Authorization", `Bearer ${TOKENS.runner}`)).status).toBe(200);
    },
    30_000,
  );

  it("keeps readiness at 200, reporting the database as saturated while every connection waits on the lock", async () => {
    await locker.query("BEGIN");
    await locker.query("LOCK TABLE events IN ACCESS EXCLUSIVE MODE");
    let inFlight: Promise<unknown> = Promise.resolve();
    try {
      const path = unservedPage();
      const get = () => request(e2e.server).get(path).set("Authorization", `Bearer ${TOKENS.runner}`).timeout(30_000);
      inFlight = Promise.all(Array.from({ length: REQUESTS }, () => get().then(() => undefined)));
      // Let the requests take every pooled connection.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const { ms, value: ready } = await timed(() => request(e2e.server).get("/health/ready").timeout(30_000));
      reportFault(
        "saturated pool",
        `readiness answered ${ready.status} (${ready.body.details?.database?.state ?? ready.body.checks?.database?.message}) in ${Math.round(ms)} ms`,
      );
      expect(ready.status).toBe(200);
      expect(ready.body.details.database).toEqual({
        status: "up",
        state: "saturated",
        message: "every database connection is busy",
      });
    } finally {
      await locker.query("ROLLBACK");
      await inFlight;
    }
  }, 30_000);
});
