import { randomBytes } from "node:crypto";
import { Writable } from "node:stream";
import { statementText } from "@community/db/testing";
import { contractFixture, TOKENS } from "@community/fixtures/testing";
import request from "supertest";
import { expectProblem } from "../testing/contract-assertions";
import { type E2eApp, startE2eApp } from "../testing/e2e-app";
import { RateLimitGuard } from "./rate-limit.guard";

const EVENTS = "/v1/me/community/team/events";
const WEBHOOKS = "/v1/me/community/team/webhooks";
const LIMIT = 3;
const FLOODER = "198.51.100.7";
const madeUp = () => randomBytes(24).toString("base64url");

/** The request log's JSON lines. */
class LogLines extends Writable {
  readonly entries: Array<Record<string, unknown>> = [];
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    for (const line of chunk.toString().split("\n")) if (line !== "") this.entries.push(JSON.parse(line));
    done();
  }
}

const refusedTotal = async (e2e: E2eApp) =>
  Number(/^rate_limit_failed_auth_refused_total (\d+)$/m.exec((await request(e2e.server).get("/metrics")).text)?.[1]);

/**
 * Once an address has spent its failed-authentication budget, its made-up tokens are refused in
 * the request pass: what they must not reach is counted (no routing to the guards, no token
 * lookup, no body read, no request line), and a counter of their own says how many there were.
 */
describe("made-up tokens from an address whose budget is spent", () => {
  const logs = new LogLines();
  let e2e: E2eApp;
  let lookups = 0;
  let guards = 0;

  beforeAll(async () => {
    e2e = await startE2eApp("postgres", contractFixture(), {
      env: { AUTH_FAILURE_LIMIT: String(LIMIT), TRUST_PROXY: "loopback", RATE_LIMIT_MAX: "100000", LOG_LEVEL: "info" },
      logDestination: logs,
    });
    const query = e2e.database.pool.query.bind(e2e.database.pool);
    jest.spyOn(e2e.database.pool, "query").mockImplementation(((text: unknown, ...rest: unknown[]) => {
      if (statementText(text).includes("FROM access_tokens")) lookups += 1;
      return (query as (...args: unknown[]) => unknown)(text, ...rest);
    }) as typeof e2e.database.pool.query);
    const canActivate = RateLimitGuard.prototype.canActivate;
    jest.spyOn(RateLimitGuard.prototype, "canActivate").mockImplementation(function (this: RateLimitGuard, context) {
      guards += 1;
      return canActivate.call(this, context);
    });
  });

  afterAll(async () => {
    jest.restoreAllMocks();
    await e2e?.close();
  });

  it("answers them 429 before routing, lookup, body or request line, and keeps serving a known token", async () => {
    const from = (token: string) => ({ Authorization: `Bearer ${token}`, "X-Forwarded-For": FLOODER });
    // The valid token is known to this replica before the guessing starts.
    expect((await request(e2e.server).get(EVENTS).set(from(TOKENS.runner))).status).toBe(200);
    for (let i = 0; i < LIMIT; i++) {
      expect((await request(e2e.server).get(EVENTS).set(from(madeUp()))).status).toBe(401);
    }
    // The last failure is settled once its response finished: wait for the address to be refused.
    for (let i = 0; i < 50 && (await request(e2e.server).get(EVENTS).set(from(madeUp()))).status !== 429; i++);
    const refused = await refusedTotal(e2e);
    const before = { lookups, guards, lines: logs.entries.length, refused };

    for (let i = 0; i < 20; i++) {
      const response = await request(e2e.server).get(EVENTS).set(from(madeUp()));
      expectProblem(response, 429, "rate-limited");
      expect(Number(response.headers["retry-after"])).toBeGreaterThan(0);
      expect(response.headers["x-request-id"]).toBeDefined();
      expect(response.headers["x-content-type-options"]).toBe("nosniff");
    }
    // A body is not read: malformed JSON and a wrong media type would be a 400 or a 415.
    const posted = await request(e2e.server)
      .post(WEBHOOKS)
      .set({ ...from(madeUp()), "Content-Type": "text/plain" })
      .send("{not json");
    expectProblem(posted, 429, "rate-limited");

    expect(lookups - before.lookups).toBe(0);
    expect(guards - before.guards).toBe(0);
    const linesAfter = logs.entries.slice(before.lines);
    expect(linesAfter.filter((entry) => entry.status === 429)).toEqual([]);
    expect((await refusedTotal(e2e)) - before.refused).toBe(21);

    // The users behind the address: a token this replica knows still reaches the token check.
    expect((await request(e2e.server).get(EVENTS).set(from(TOKENS.runner))).status).toBe(200);
  });
});
