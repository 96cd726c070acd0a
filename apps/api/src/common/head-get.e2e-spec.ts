import { TOKENS } from "@community/fixtures/testing";
import request from "supertest";
import { contractAppForSuite } from "../testing/suite-app";

const EVENTS = "/v1/me/community/team/events";

/** Headers that differ between any two responses, whatever the method. */
const PER_RESPONSE = new Set(["date", "x-request-id", "ratelimit", "connection", "keep-alive"]);

type Case = [string, string, Record<string, string>];

const CASES: Case[] = [
  ["an unknown path (404)", "/v1/nothing", {}],
  ["an unknown path under /oauth (404)", "/oauth/nothing", {}],
  ["a list without a token (401)", EVENTS, {}],
  ["an invalid query (400)", `${EVENTS}?per_page=500`, { Authorization: `Bearer ${TOKENS.runner}` }],
  ["an Accept that excludes JSON (406)", EVENTS, { Authorization: `Bearer ${TOKENS.runner}`, Accept: "text/html" }],
  ["a user without a team (404)", EVENTS, { Authorization: `Bearer ${TOKENS.noTeam}` }],
  ["a page (200)", `${EVENTS}?per_page=2`, { Authorization: `Bearer ${TOKENS.runner}` }],
  ["the OpenAPI document (200)", "/openapi.json", {}],
  ["the provider's JWKS (200)", "/oauth/jwks", {}],
];

function headersOf(response: request.Response): Record<string, unknown> {
  return Object.fromEntries(Object.entries(response.headers).filter(([name]) => !PER_RESPONSE.has(name)));
}

describe("HEAD and GET", () => {
  const e2e = contractAppForSuite();

  it.each(CASES)("send the same headers for %s, Content-Length the GET body's", async (_case, path, headers) => {
    const get = await request(e2e.server)
      .get(path)
      .set({ "Accept-Encoding": "identity", ...headers })
      .buffer(true)
      .parse((response, done) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => done(null, Buffer.concat(chunks)));
      });
    const head = await request(e2e.server)
      .head(path)
      .set({ "Accept-Encoding": "identity", ...headers });
    expect(head.status).toBe(get.status);
    expect(Number(head.headers["content-length"])).toBe((get.body as Buffer).length);
    expect(headersOf(head)).toEqual(headersOf(get));
  });
});
