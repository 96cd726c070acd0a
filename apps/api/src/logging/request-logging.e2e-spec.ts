import { Writable } from "node:stream";
import { contractFixture, TOKENS } from "@community/fixtures/testing";
import request from "supertest";
import { expectProblem } from "../testing/contract-assertions";
import { type E2eApp, startE2eApp } from "../testing/e2e-app";

const EVENTS = "/v1/me/community/team/events";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Every line the app's logger writes, as text. */
class Capture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    this.lines.push(
      ...chunk
        .toString()
        .split("\n")
        .filter((line) => line !== ""),
    );
    done();
  }
  entriesFor(requestId: string): Array<Record<string, unknown>> {
    return this.lines.map((line) => JSON.parse(line)).filter((entry) => entry.requestId === requestId);
  }
}

describe("request logs", () => {
  const capture = new Capture();
  let e2e: E2eApp;
  let server: E2eApp["server"];

  beforeAll(async () => {
    e2e = await startE2eApp("postgres", contractFixture(), { env: { LOG_LEVEL: "info" }, logDestination: capture });
    server = e2e.server;
  });

  afterAll(async () => {
    await e2e?.close();
  });

  it("writes one JSON line per request with method, route, status, duration, request id and user id", async () => {
    const response = await request(server)
      .get(`${EVENTS}?per_page=5`)
      .set("Authorization", `Bearer ${TOKENS.runner}`)
      .set("X-Request-Id", "req-abc.123");
    expect(response.status).toBe(200);
    expect(response.headers["x-request-id"]).toBe("req-abc.123");
    const entries = capture.entriesFor("req-abc.123");
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      level: 30,
      msg: "request completed",
      method: "GET",
      route: EVENTS,
      path: EVENTS,
      status: 200,
      userId: "user_runner",
    });
    expect(typeof entries[0]?.durationMs).toBe("number");
    expect(typeof entries[0]?.time).toBe("string");
    const line = capture.lines.find((l) => l.includes("req-abc.123")) ?? "";
    expect(line.match(/"requestId"/g)).toHaveLength(1);
  });

  it("names the authorization server's routes by their template, and another spelling of one as unmatched", async () => {
    const cases = [
      ["get", "/oauth/.well-known/openid-configuration", "/oauth/.well-known/openid-configuration"],
      ["get", "/oauth/jwks", "/oauth/jwks"],
      ["post", "/oauth/token", "/oauth/token"],
      ["get", "/oauth/auth/some-interaction", "/oauth/auth/:uid"],
      ["get", "/oauth/session/end", "/oauth/session/end"],
      ["get", "/oauth/interaction/some-interaction", "/oauth/interaction/:uid"],
      ["get", "/oauth/JWKS", "unmatched"],
    ] as const;
    for (const [method, path, route] of cases) {
      const id = `oauth-route-${cases.findIndex((c) => c[1] === path)}`;
      await request(server)[method](path).set("X-Request-Id", id);
      expect({ path, entries: capture.entriesFor(id) }).toEqual({
        path,
        entries: [expect.objectContaining({ route, path })],
      });
    }
  });

  it("generates a UUID request id when none is sent, and returns it on errors too", async () => {
    const response = await request(server).get(EVENTS);
    expectProblem(response, 401, "unauthorized");
    const id = response.headers["x-request-id"] as string;
    expect(id).toMatch(UUID);
    expect(capture.entriesFor(id)).toEqual([expect.objectContaining({ status: 401, route: EVENTS })]);
    expect(capture.entriesFor(id)[0]).not.toHaveProperty("userId");
  });

  it.each([
    ["too long", "x".repeat(129)],
    ["with spaces", "a b"],
    ["with a newline-like payload", 'id","level":60'],
  ])("replaces a request id that is %s", async (_case, sent) => {
    const response = await request(server).get("/health/live").set("X-Request-Id", sent);
    expect(response.headers["x-request-id"]).toMatch(UUID);
  });

  it("never writes the Authorization header, the token, cookies or the query string", async () => {
    const secret = "tok-not-a-real-token-but-secret";
    const responses = await Promise.all([
      request(server)
        .get(EVENTS)
        .set("Authorization", `Bearer ${TOKENS.runner}`)
        .set("Cookie", "session=cookie-secret"),
      request(server).get(`${EVENTS}?access_token=${secret}&page=1`).set("Authorization", `Bearer ${secret}`),
      request(server).get(`/nowhere?token=${secret}`).set("Authorization", `Bearer ${secret}`),
    ]);
    expect(responses.map((r) => r.status)).toEqual([200, 401, 404]);
    const written = capture.lines.join("\n");
    for (const forbidden of [TOKENS.runner, secret, "cookie-secret", "Bearer", "authorization", "access_token"]) {
      expect(written.toLowerCase()).not.toContain(forbidden.toLowerCase());
    }
    expect(capture.entriesFor(responses[2]?.headers["x-request-id"] as string)[0]).toMatchObject({
      route: "unmatched",
      path: "/nowhere",
      status: 404,
    });
  });

  it("logs the real path of a request that a middleware refused before routing", async () => {
    const response = await request(server)
      .post(EVENTS)
      .set("X-Request-Id", "req-too-large")
      .set("Content-Type", "application/json")
      .send("x".repeat(200_000));
    expectProblem(response, 413, "payload-too-large");
    expect(capture.entriesFor("req-too-large")[0]).toMatchObject({ route: "unmatched", path: EVENTS, status: 413 });
  });

  it("writes at most 512 bytes of a long path, with a marker saying how much was left out", async () => {
    const path = `/nothing/${"a".repeat(15 * 1024)}`;
    const response = await request(server).get(path).set("X-Request-Id", "req-long-path");
    expectProblem(response, 404, "not-found");
    const line = capture.lines.find((l) => l.includes("req-long-path")) ?? "";
    expect(Buffer.byteLength(line)).toBeLessThan(1024);
    const logged = capture.entriesFor("req-long-path")[0]?.path as string;
    expect(logged).toBe(`${path.slice(0, 512)}…[${path.length - 512} more bytes]`);
  });
});
