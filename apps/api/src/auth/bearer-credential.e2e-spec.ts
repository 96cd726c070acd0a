import { hashToken } from "@community/db";
import { contractFixture, TOKENS } from "@community/fixtures/testing";
import request from "supertest";
import { bearerCredential } from "../common/bearer-credential";
import { type E2eApp, startE2eApp } from "../testing/e2e-app";

// Every hashToken of the app counted: the function itself, wrapped (the module as published, no patch).
jest.mock("@community/db", () => {
  const actual = jest.requireActual<typeof import("@community/db")>("@community/db");
  return { ...actual, hashToken: jest.fn(actual.hashToken) };
});

const EVENTS = "/v1/me/community/team/events";
const digests = jest.mocked(hashToken);

/** How many times the token was hashed while `send` ran. */
async function digestsOf(token: string, send: () => Promise<request.Response>): Promise<number> {
  digests.mockClear();
  const response = await send();
  expect(response.status).toBeLessThan(300);
  return digests.mock.calls.filter(([hashed]) => hashed === token).length;
}

describe(bearerCredential.name, () => {
  it("reads the Authorization header's bearer token once per request and keeps its digest", () => {
    const request = { headers: { authorization: "bEaReR tok-1" } };
    const digest = hashToken("tok-1");
    digests.mockClear();
    const credential = bearerCredential(request);
    expect(credential).toEqual({ token: "tok-1", digest });
    expect(bearerCredential(request)).toBe(credential);
    expect(digests.mock.calls.filter(([token]) => token === "tok-1")).toHaveLength(1);
    expect(bearerCredential({ headers: { authorization: "Basic abc" } })).toBeUndefined();
    expect(bearerCredential({ headers: { authorization: "Bearer a b" } })).toBeUndefined();
    expect(bearerCredential({ headers: {} })).toBeUndefined();
  });
});

describe("the bearer token of a request", () => {
  let e2e: E2eApp;
  const bearer = { Authorization: `Bearer ${TOKENS.runner}` };

  beforeAll(async () => {
    e2e = await startE2eApp("postgres", contractFixture());
  }, 120_000);

  afterAll(async () => {
    await e2e?.close();
  });

  it("is hashed once for a page, through the rate limit, passport and the handler", async () => {
    expect(await digestsOf(TOKENS.runner, () => request(e2e.server).get(`${EVENTS}?per_page=2`).set(bearer))).toBe(1);
  });

  it("is hashed once for a held changes request, whose holder is the token's digest", async () => {
    const first = await request(e2e.server).get(`${EVENTS}/changes`).set(bearer);
    const since = encodeURIComponent(first.body.meta.sync.next as string);
    const held = () => request(e2e.server).get(`${EVENTS}/changes?since=${since}&wait=1`).set(bearer);
    expect(await digestsOf(TOKENS.runner, held)).toBe(1);
  });

  it("is taken from the Authorization header alone; an access_token query parameter is ignored", async () => {
    const both = await request(e2e.server).get(`${EVENTS}?access_token=nope`).set(bearer);
    expect(both.status).toBe(200);
    const queryOnly = await request(e2e.server).get(`${EVENTS}?access_token=${TOKENS.runner}`);
    expect(queryOnly.status).toBe(401);
    expect(queryOnly.headers["www-authenticate"]).toBe('Bearer realm="api"');
  });

  it("is hashed once for a webhooks request", async () => {
    const list = () => request(e2e.server).get("/v1/me/community/team/webhooks").set(bearer);
    expect(await digestsOf(TOKENS.runner, list)).toBe(1);
  });
});
