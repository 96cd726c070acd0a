import { TOKENS } from "@community/fixtures/testing";
import request from "supertest";
import { expectProblem } from "../testing/contract-assertions";
import { contractAppForSuite } from "../testing/suite-app";

const EVENTS = "/v1/me/community/team/events";
const GUIDES = "/v1/me/community/team/guides";
const bearer = { Authorization: `Bearer ${TOKENS.runner}` };

describe("security headers, body limit, request timeout and CORS (defaults)", () => {
  const e2e = contractAppForSuite({ REQUEST_TIMEOUT_MS: "300" });

  it.each([
    ["a list response", EVENTS, bearer],
    ["a problem", EVENTS, {}],
    ["an unknown path", "/nowhere", {}],
    ["a probe", "/health/live", {}],
  ])("sends helmet's headers and a strict CSP on %s, and no X-Powered-By", async (_case, path, headers) => {
    const response = await request(e2e.server).get(path).set(headers);
    expect(response.headers["content-security-policy"]).toBe("default-src 'none';frame-ancestors 'none'");
    expect(response.headers["x-content-type-options"]).toBe("nosniff");
    expect(response.headers["x-frame-options"]).toBe("SAMEORIGIN");
    expect(response.headers["strict-transport-security"]).toMatch(/^max-age=\d+/);
    expect(response.headers["referrer-policy"]).toBe("no-referrer");
    expect(response.headers["cross-origin-resource-policy"]).toBe("same-origin");
    expect(response.headers["x-powered-by"]).toBeUndefined();
  });

  it.each([EVENTS, GUIDES])("keeps Vary: Authorization on %s", async (path) => {
    const response = await request(e2e.server).get(path).set(bearer);
    expect(response.status).toBe(200);
    expect(response.headers.vary).toMatch(/\bAuthorization\b/);
  });

  it("answers a declared body over BODY_LIMIT_BYTES with a 413 problem", async () => {
    const response = await request(e2e.server)
      .post(EVENTS)
      .set(bearer)
      .set("Content-Type", "application/json")
      .send(JSON.stringify({ pad: "x".repeat(200_000) }));
    expectProblem(response, 413, "payload-too-large");
    expect(response.body.detail).toBe("Request bodies are limited to 102400 bytes");
    const small = await request(e2e.server).post(EVENTS).set(bearer).send("{}");
    expectProblem(small, 405, "method-not-allowed");
  });

  it("answers 503 with Retry-After when a request outlives REQUEST_TIMEOUT_MS", async () => {
    // Holding an exclusive lock on the events table makes the page query wait behind it; a page
    // size no other test asks for keeps the page out of the page cache, so the query runs.
    const blocker = await e2e.database.pool.connect();
    try {
      await blocker.query("BEGIN");
      await blocker.query("LOCK TABLE events IN ACCESS EXCLUSIVE MODE");
      const response = await request(e2e.server).get(`${EVENTS}?per_page=7`).set(bearer).timeout(10_000);
      expectProblem(response, 503, "unavailable");
      expect(response.body.detail).toBe("The request did not complete within 300 ms; try again later");
      expect(response.headers["retry-after"]).toBe(String(e2e.config.retryAfterSeconds));
    } finally {
      await blocker.query("ROLLBACK");
      blocker.release();
    }
    expect((await request(e2e.server).get(EVENTS).set(bearer)).status).toBe(200);
  });

  it.each([
    ["a 401", "get", `${EVENTS}?access_token=query-secret`, {}, 401, EVENTS],
    ["a 400", "get", `${EVENTS}?access_token=query-secret&page=0&client_secret=s`, bearer, 400, `${EVENTS}?page=0`],
    ["a 404", "get", "/nowhere?access_token=query-secret", {}, 404, "/nowhere"],
    ["a 405", "delete", `${GUIDES}?id_token_hint=query-secret&per_page=5`, {}, 405, `${GUIDES}?per_page=5`],
  ] as const)(
    "never echoes a credential of the query string in %s",
    async (_case, method, url, headers, status, instance) => {
      const response = await request(e2e.server)[method](url).set(headers);
      expect(response.status).toBe(status);
      expect(response.text).not.toContain("secret");
      expect(response.body.instance).toBe(instance);
    },
  );

  it("sends no CORS headers when CORS_ORIGINS is not set", async () => {
    const response = await request(e2e.server).get(EVENTS).set(bearer).set("Origin", "https://app.example.com");
    expect(response.status).toBe(200);
    expect(response.headers["access-control-allow-origin"]).toBeUndefined();
    const preflight = await request(e2e.server)
      .options(EVENTS)
      .set("Origin", "https://app.example.com")
      .set("Access-Control-Request-Method", "GET");
    expect(preflight.headers["access-control-allow-origin"]).toBeUndefined();
  });
});

describe("CORS with an allow-list", () => {
  const e2e = contractAppForSuite({
    CORS_ORIGINS: "https://app.example.com,http://localhost:5173",
    BODY_LIMIT_BYTES: "10",
  });

  it("allows a listed origin and exposes the headers a client reads", async () => {
    const response = await request(e2e.server).get(EVENTS).set(bearer).set("Origin", "http://localhost:5173");
    expect(response.status).toBe(200);
    expect(response.headers["access-control-allow-origin"]).toBe("http://localhost:5173");
    expect(response.headers.vary).toMatch(/\bOrigin\b/);
    expect(response.headers.vary).toMatch(/\bAuthorization\b/);
    const exposed = (response.headers["access-control-expose-headers"] as string).split(",");
    expect(exposed).toEqual(
      expect.arrayContaining(["Link", "X-Total-Count", "ETag", "RateLimit-Policy", "RateLimit", "X-Request-Id"]),
    );
  });

  it("answers a preflight of a listed origin", async () => {
    const preflight = await request(e2e.server)
      .options(EVENTS)
      .set("Origin", "https://app.example.com")
      .set("Access-Control-Request-Method", "GET")
      .set("Access-Control-Request-Headers", "authorization");
    expect(preflight.status).toBe(204);
    expect(preflight.headers["access-control-allow-origin"]).toBe("https://app.example.com");
    expect(preflight.headers["access-control-allow-methods"]).toBe("GET,HEAD");
    expect(preflight.headers["access-control-allow-headers"]).toMatch(/Authorization/);
  });

  it("gives an unlisted origin no CORS headers", async () => {
    const response = await request(e2e.server).get(EVENTS).set(bearer).set("Origin", "https://evil.example.com");
    expect(response.headers["access-control-allow-origin"]).toBeUndefined();
  });

  it("takes the body limit from BODY_LIMIT_BYTES", async () => {
    const response = await request(e2e.server).post(EVENTS).set(bearer).send("x".repeat(11));
    expectProblem(response, 413, "payload-too-large");
    expect(response.body.detail).toBe("Request bodies are limited to 10 bytes");
  });
});
