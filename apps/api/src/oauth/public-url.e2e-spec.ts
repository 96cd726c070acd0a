import request from "supertest";
import { oauthFixture, PUBLIC_CLIENT, RUNNER } from "../testing/oauth-fixture";
import { appForSuite } from "../testing/suite-app";
import { type OAuthE2eApp, startOAuthApp } from "./testing/oauth-app";
import { authorizationRequest, discoverAs, loadOpenIdClient } from "./testing/oauth-client";

const EVIL = "evil.example";
const ENDPOINTS = ["authorization_endpoint", "token_endpoint", "jwks_uri", "end_session_endpoint"] as const;

/** The `name=value` pairs of a response's Set-Cookie headers, as a Cookie header. */
const cookiesOf = (response: request.Response) =>
  ([] as string[])
    .concat(response.headers["set-cookie"] ?? [])
    .map((cookie) => cookie.split(";")[0])
    .join("; ");

/**
 * Every URL the authorization server emits comes from PUBLIC_URL (RFC 8414 section 2), whatever
 * Host or X-Forwarded-* header a request carries; with an https PUBLIC_URL its cookies are Secure.
 */
describe("the authorization server's URLs", () => {
  const e2e = appForSuite(() => startOAuthApp("postgres", oauthFixture()), 120_000);

  it("are PUBLIC_URL's in discovery, whatever the Host", async () => {
    const response = await request(e2e.server).get("/oauth/.well-known/openid-configuration").set("Host", EVIL);
    expect(response.status).toBe(200);
    expect(response.body.issuer).toBe(e2e.issuer);
    for (const endpoint of ENDPOINTS) expect(response.body[endpoint]).toMatch(new RegExp(`^${e2e.issuer}/`));
  });

  it("are PUBLIC_URL's in the sign-out form", async () => {
    const response = await request(e2e.server).get("/oauth/session/end").set("Host", EVIL);
    expect(response.text).not.toContain(EVIL);
    expect(response.text).toContain(`action="${e2e.issuer}/session/end/confirm"`);
  });

  it("are PUBLIC_URL's in the redirect after the sign-in, whatever Host the authorization request had", async () => {
    const oidc = await loadOpenIdClient();
    const client = await discoverAs(oidc, e2e.issuer, PUBLIC_CLIENT.clientId);
    const { url } = await authorizationRequest(oidc, client);
    const authorize = await request(e2e.server)
      .get(url.pathname + url.search)
      .set("Host", EVIL);
    const interaction = String(authorize.headers.location);
    expect(interaction).toMatch(/\/oauth\/interaction\/[\w-]+$/);
    expect(interaction).not.toContain(EVIL);
    const signIn = await request(e2e.server)
      .post(`${new URL(interaction, e2e.origin).pathname}/login`)
      .set("Host", EVIL)
      .set("Cookie", cookiesOf(authorize))
      .type("form")
      .send({ username: RUNNER.username, password: RUNNER.password });
    expect(signIn.status).toBe(303);
    expect(signIn.headers.location).toMatch(new RegExp(`^${e2e.issuer}/auth/`));
  });
});

describe("the authorization server behind a TLS proxy", () => {
  let e2e: OAuthE2eApp;
  const publicUrl = "https://api.example.test";

  beforeAll(async () => {
    e2e = await startOAuthApp("postgres", oauthFixture(), { PUBLIC_URL: publicUrl, TRUST_PROXY: "loopback" });
  }, 120_000);

  afterAll(async () => {
    await e2e?.close();
  });

  it("advertises https endpoints, even when the proxy says http", async () => {
    const response = await request(e2e.server)
      .get("/oauth/.well-known/openid-configuration")
      .set("X-Forwarded-Proto", "http")
      .set("X-Forwarded-Host", EVIL);
    expect(response.body.issuer).toBe(`${publicUrl}/oauth`);
    for (const endpoint of ENDPOINTS) expect(response.body[endpoint]).toMatch(new RegExp(`^${publicUrl}/oauth/`));
  });

  it("sets Secure on every cookie of the sign-in", async () => {
    const query = new URLSearchParams({
      client_id: PUBLIC_CLIENT.clientId,
      redirect_uri: "http://client.test/callback",
      response_type: "code",
      scope: "community:read",
      code_challenge: "a".repeat(43),
      code_challenge_method: "S256",
    });
    const authorize = await request(e2e.server).get(`/oauth/auth?${query}`).set("X-Forwarded-Proto", "https");
    const cookies = ([] as string[]).concat(authorize.headers["set-cookie"] ?? []);
    expect(cookies.length).toBeGreaterThan(0);
    for (const cookie of cookies) expect(cookie).toMatch(/;\s*secure/i);
    const signIn = await request(e2e.server)
      .post(`${String(authorize.headers.location)}/login`)
      .set("Cookie", cookiesOf(authorize))
      .type("form")
      .send({ username: RUNNER.username, password: RUNNER.password });
    // The resume (back at /oauth/auth) sets the session cookies.
    const resume = await request(e2e.server)
      .get(new URL(String(signIn.headers.location)).pathname)
      .set("Cookie", cookiesOf(authorize));
    const session = ([] as string[]).concat(resume.headers["set-cookie"] ?? []);
    expect(session.some((cookie) => cookie.startsWith("_session="))).toBe(true);
    for (const cookie of session) expect(cookie).toMatch(/;\s*secure/i);
  });
});
