import { TOKENS } from "@community/fixtures/testing";
import request from "supertest";
import { expectProblem } from "../testing/contract-assertions";
import { type RawResponse, sendRaw } from "../testing/raw-http";
import { contractAppForSuite, listeningContractAppForSuite } from "../testing/suite-app";

const EVENTS = "/v1/me/community/team/events";
const WEBHOOKS = "/v1/me/community/team/webhooks";
const bearer = { Authorization: `Bearer ${TOKENS.runner}` };

/** `count` parameters that no route knows, as a query's prefix. */
const unknown = (count: number) => Array.from({ length: count }, (_, i) => `x${i}=1`).join("&");

function expectRawProblem(response: RawResponse, status: number, detail: string): void {
  expect(response.status).toBe(status);
  expect(response.headers["content-type"]).toBe("application/problem+json; charset=utf-8");
  expect(JSON.parse(response.body).detail).toBe(detail);
}

describe("a query the parser cannot read whole (more than 1000 parameters)", () => {
  const e2e = contractAppForSuite();
  let cursor: string;
  let since: string;

  beforeAll(async () => {
    cursor = (await request(e2e.server).get(`${EVENTS}?cursor=&per_page=1`).set(bearer)).body.meta.pagination
      .next_cursor;
    since = (await request(e2e.server).get(`${EVENTS}/changes`).set(bearer)).body.meta.sync.next;
  });

  it.each([
    ["the page", () => "page=2&per_page=5"],
    ["per_page", () => "per_page=500"],
    ["the status filter", () => "status=canceled"],
    ["a window", () => "scheduled_from=2026-01-01T00:00:00Z&scheduled_to=2026-02-01T00:00:00Z"],
    ["the cursor", () => `cursor=${encodeURIComponent(cursor)}&per_page=1`],
  ])("refuses %s after 2,000 unknown parameters with a 414 problem", async (_case, query) => {
    const response = await request(e2e.server)
      .get(`${EVENTS}?${unknown(2000)}&${query()}`)
      .set(bearer);
    expectProblem(response, 414, "too-many-query-parameters");
    expect(response.body.detail).toMatch(/^A query string carries at most 1000 parameters; this one carries 200\d$/);
  });

  it("refuses the feed's since after 2,000 unknown parameters, and the write stays in the feed", async () => {
    await e2e.database.prisma.$executeRawUnsafe(
      `UPDATE events SET name = 'Renamed' WHERE id = (SELECT id FROM events WHERE team_id = 'team_runners' LIMIT 1)`,
    );
    const refused = await request(e2e.server)
      .get(`${EVENTS}/changes?${unknown(2000)}&since=${since}`)
      .set(bearer);
    expectProblem(refused, 414, "too-many-query-parameters");
    const changes = await request(e2e.server).get(`${EVENTS}/changes?since=${since}`).set(bearer);
    expect(changes.status).toBe(200);
    expect(changes.body.changes.length).toBeGreaterThan(0);
  });

  it.each(["/oauth/auth", "/nowhere", "/health/live"])("refuses 1,001 parameters on %s too", async (path) => {
    const response = await request(e2e.server).get(`${path}?${unknown(1001)}`);
    expectProblem(response, 414, "too-many-query-parameters");
  });

  it("counts empty fields as node:querystring does", async () => {
    const response = await request(e2e.server)
      .get(`${EVENTS}?${"&".repeat(1000)}page=2`)
      .set(bearer);
    expectProblem(response, 414, "too-many-query-parameters");
  });

  it("refuses a sign-in form of 1,001 fields with a 413 page naming the limit", async () => {
    const response = await request(e2e.server)
      .post("/oauth/interaction/some-uid/login")
      .type("form")
      .send(`${unknown(999)}&login=a&password=b`);
    expect(response.status).toBe(413);
    expect(response.text).toContain("A form carries at most 1000 fields");
  });

  it("serves 1,000 parameters, the last of them read", async () => {
    const response = await request(e2e.server)
      .get(`${EVENTS}?${unknown(998)}&page=2&per_page=1`)
      .set(bearer);
    expect(response.status).toBe(200);
    expect(response.body.meta.pagination.current_page).toBe(2);
    expect(response.body.meta.pagination.per_page).toBe(1);
  });
});

describe("header fields the service reads as one value", () => {
  const app = listeningContractAppForSuite({ HTTP_MAX_HEADER_BYTES: "65536" });

  const head = (requestLine: string, fields: string[], body = "") =>
    [requestLine, "Host: localhost", ...fields, "Connection: close", "", body].join("\r\n");

  it.each([
    ["a valid token then a made-up one", [TOKENS.runner, "made-up"]],
    ["two valid tokens of two teams", [TOKENS.runner, TOKENS.climber]],
    ["the same token twice", [TOKENS.runner, TOKENS.runner]],
  ])("answers two Authorization headers (%s) with a 400 problem on every route", async (_case, tokens) => {
    for (const path of [EVENTS, `${EVENTS}/changes`, "/nowhere", "/oauth/auth?client_id=x", "/health/live"]) {
      const response = await sendRaw(
        app.port,
        head(
          `GET ${path} HTTP/1.1`,
          tokens.map((token) => `Authorization: Bearer ${token}`),
        ),
      );
      expectRawProblem(response, 400, "A request carries at most one Authorization header");
      expect(response.body).not.toContain(TOKENS.runner);
    }
  });

  it("answers two Authorization headers at the OAuth token endpoint with a 400 problem", async () => {
    const form = "grant_type=authorization_code&code=x&redirect_uri=http%3A%2F%2Flocalhost%2Fcb";
    const response = await sendRaw(
      app.port,
      head(
        "POST /oauth/token HTTP/1.1",
        [
          `Authorization: Basic ${Buffer.from("a:b").toString("base64")}`,
          `Authorization: Basic ${Buffer.from("c:d").toString("base64")}`,
          "Content-Type: application/x-www-form-urlencoded",
          `Content-Length: ${form.length}`,
        ],
        form,
      ),
    );
    expectRawProblem(response, 400, "A request carries at most one Authorization header");
  });

  it.each([
    ["Content-Type", ["Content-Type: application/json", "Content-Type: text/plain"]],
    ["Origin", ["Origin: https://a.example", "Origin: https://b.example"]],
  ])("answers two %s headers on a body route with a 400 problem", async (name, fields) => {
    const body = JSON.stringify({ url: "https://example.com/hook", lists: ["events"] });
    const response = await sendRaw(
      app.port,
      head(
        `POST ${WEBHOOKS} HTTP/1.1`,
        [`Authorization: Bearer ${TOKENS.runner}`, ...fields, `Content-Length: ${body.length}`],
        body,
      ),
    );
    expectRawProblem(response, 400, `A request carries at most one ${name} header`);
  });

  it("serves list fields given more than once (Accept, If-None-Match, X-Forwarded-For)", async () => {
    const response = await sendRaw(
      app.port,
      head(`GET ${EVENTS} HTTP/1.1`, [
        `Authorization: Bearer ${TOKENS.runner}`,
        "Accept: text/html",
        "Accept: application/json",
        'If-None-Match: "a"',
        'If-None-Match: "b"',
        "X-Forwarded-For: 192.0.2.1",
        "X-Forwarded-For: 192.0.2.2",
      ]),
    );
    expect(response.status).toBe(200);
  });

  it("answers 101 header fields with a 431 problem naming the limit, and serves 100", async () => {
    const filler = (count: number) => Array.from({ length: count }, (_, i) => `X-Filler-${i}: 1`);
    // Host, Connection and Authorization, then the filler: the Authorization is not the one dropped.
    const served = await sendRaw(
      app.port,
      head(`GET ${EVENTS} HTTP/1.1`, [`Authorization: Bearer ${TOKENS.runner}`, ...filler(97)]),
    );
    expect(served.status).toBe(200);
    const refused = await sendRaw(
      app.port,
      head(`GET ${EVENTS} HTTP/1.1`, [...filler(98), `Authorization: Bearer ${TOKENS.runner}`]),
    );
    expectRawProblem(refused, 431, "The request line and headers are limited to 65536 bytes and 100 header fields");
  });
});
