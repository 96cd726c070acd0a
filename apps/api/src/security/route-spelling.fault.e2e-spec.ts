import { TOKENS } from "@community/fixtures/testing";
import request from "supertest";
import { expectProblem } from "../testing/contract-assertions";
import { type E2eApp } from "../testing/e2e-app";
import { reportFault } from "../testing/fault-report";
import { contractAppForSuite } from "../testing/suite-app";

const EVENTS = "/v1/me/community/team/events";
const GUIDES = "/v1/me/community/team/guides";
const bearer = { Authorization: `Bearer ${TOKENS.runner}` };

type Method = "get" | "post" | "head";

/** Other spellings of real routes: case, a trailing slash, both. */
const VARIANTS: Array<[Method, string]> = [
  ["get", "/V1/me/community/team/events"],
  ["get", "/v1/ME/community/team/events"],
  ["get", "/v1/me/community/team/EVENTS"],
  ["get", `${EVENTS}/`],
  ["get", `${GUIDES}/`],
  ["head", `${GUIDES}/`],
  ["get", `${EVENTS}/?page=1`],
  ["get", "/HEALTH/live"],
  ["get", "/health/live/"],
  ["get", "/Metrics"],
  ["get", "/OPENAPI.json"],
  ["get", "/OAUTH/auth"],
  ["get", "/oauth/AUTH"],
  ["get", "/oauth/auth/"],
  ["get", "/oauth/Auth/"],
  ["post", "/oauth/token/"],
  ["post", "/oauth/TOKEN"],
  ["post", "/OAUTH/token"],
  ["get", "/oauth/JWKS"],
  ["get", "/oauth/jwks/"],
  ["get", "/oauth/.well-known/OPENID-configuration"],
  ["get", "/oauth/.well-known/openid-configuration/"],
  ["post", "/oauth/token/REVOCATION"],
  ["get", "/oauth/Interaction/abc"],
];

/** A request to the token endpoint that the provider answers 400 (no client): enough to count. */
function tokenRequest(server: E2eApp["server"], path: string) {
  return request(server).post(path).type("form").send({ grant_type: "authorization_code", code: "x" });
}

describe("one spelling per route", () => {
  const e2e = contractAppForSuite({ OAUTH_RATE_LIMIT_MAX: "2", OAUTH_RATE_LIMIT_WINDOW_SECONDS: "600" });

  it("answers the canonical spelling of each route", async () => {
    expect((await request(e2e.server).get(EVENTS).set(bearer)).status).toBe(200);
    expect((await request(e2e.server).head(GUIDES).set(bearer)).status).toBe(200);
    expect((await request(e2e.server).get("/health/live")).status).toBe(200);
    expect((await request(e2e.server).get("/oauth/jwks")).status).toBe(200);
    expect((await request(e2e.server).get("/oauth/.well-known/openid-configuration")).status).toBe(200);
    const interaction = await request(e2e.server).get("/oauth/interaction/unknown-uid");
    expect(interaction.status).not.toBe(404);
  });

  it("answers 404 not-found to every other spelling", async () => {
    const answered: string[] = [];
    for (const [method, path] of VARIANTS) {
      const response = await request(e2e.server)[method](path).set(bearer);
      if (response.status !== 404) answered.push(`${method.toUpperCase()} ${path} -> ${response.status}`);
      else if (method !== "head") expectProblem(response, 404, "not-found");
    }
    expect(answered).toEqual([]);
  });

  it("counts the token endpoint's limit on its one spelling: once spent, no spelling gets through", async () => {
    for (let attempt = 0; attempt < 2; attempt += 1) {
      expect((await tokenRequest(e2e.server, "/oauth/token")).status).toBe(400);
    }
    expectProblem(await tokenRequest(e2e.server, "/oauth/token"), 429, "rate-limited");

    const spellings = ["/oauth/token/", "/oauth/TOKEN", "/OAUTH/token", "/oauth/Token/", "/oauth//token"];
    const past: string[] = [];
    for (let round = 0; round < 13; round += 1) {
      for (const path of spellings) {
        const response = await tokenRequest(e2e.server, path);
        if (response.status !== 404 && response.status !== 429) past.push(`${path} -> ${response.status}`);
      }
    }
    reportFault(
      "path variants",
      `${past.length} of ${spellings.length * 13} differently spelled token requests answered past a spent limit`,
    );
    expect(past).toEqual([]);
  });
});
