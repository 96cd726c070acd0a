import { hashToken } from "@community/db";
import request from "supertest";
import type { App } from "supertest/types";
import { expectProblem } from "../testing/contract-assertions";
import { type Backend, type E2eApp, startE2eAppOn } from "../testing/e2e-app";
import { oauthFixture, PUBLIC_CLIENT, REDIRECT_URI, RUNNER } from "../testing/oauth-fixture";
import { type OAuthE2eApp, startOAuthApp } from "./testing/oauth-app";
import { OAuthBrowser, signInAndConsent } from "./testing/oauth-browser";
import { authorizationRequest, type ClientConfig, discoverAs, loadOpenIdClient } from "./testing/oauth-client";

const EVENTS = "/v1/me/community/team/events?per_page=5";
const backends: Backend[] = ["postgres", "embedded"];
// Many sign-ins from one address: these suites are about revocation, not limits.
const NO_LIMITS = { LOGIN_RATE_LIMIT_ATTEMPTS: "0", OAUTH_RATE_LIMIT_MAX: "0" };

interface Tokens {
  access: string;
  refresh: string;
}

async function signIn(
  e2e: OAuthE2eApp,
  client: ClientConfig,
  browser: OAuthBrowser = new OAuthBrowser(e2e.origin),
): Promise<Tokens> {
  const oidc = await loadOpenIdClient();
  const { url, verifier } = await authorizationRequest(oidc, client);
  const callback = await signInAndConsent(browser, url, RUNNER, e2e.origin);
  const tokens = await oidc.authorizationCodeGrant(client, callback, { pkceCodeVerifier: verifier });
  return { access: tokens.access_token, refresh: tokens.refresh_token ?? "" };
}

function list(server: App, accessToken: string) {
  return request(server).get(EVENTS).set("Authorization", `Bearer ${accessToken}`);
}

/** Twice: the second answer comes from the page cache, the state each check starts from. */
async function warm(server: App, accessToken: string): Promise<number> {
  await list(server, accessToken);
  return (await list(server, accessToken)).status;
}

/** RFC 7009 revocation of a refresh token at the built-in server, as a client posts it. */
async function revoke(e2e: OAuthE2eApp, refreshToken: string): Promise<number> {
  const response = await fetch(`${e2e.issuer}/token/revocation`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ client_id: PUBLIC_CLIENT.clientId, token: refreshToken }),
  });
  return response.status;
}

/**
 * The built-in server's access tokens are JWTs that carry their grant; every request checks on
 * the primary that the grant still exists and has not expired. So revoking a refresh token (RFC
 * 7009 section 2.1: the server SHOULD also invalidate the access tokens of the same grant), a
 * sign-out at the server, a reused code and an expired grant each refuse the access token on the very next request, its
 * page hot in the cache.
 */
describe.each(backends)("revocation of a built-in server's grant on %s", (backend) => {
  let e2e: OAuthE2eApp;
  let client: ClientConfig;

  beforeAll(async () => {
    e2e = await startOAuthApp(backend, oauthFixture(), NO_LIMITS);
    client = await discoverAs(await loadOpenIdClient(), e2e.issuer, PUBLIC_CLIENT.clientId);
  }, 120_000);

  afterAll(async () => {
    await e2e?.close();
  });

  it("refuses the access token on the very next request after its refresh token is revoked", async () => {
    const tokens = await signIn(e2e, client);
    const other = await signIn(e2e, client);
    expect(await warm(e2e.server, tokens.access)).toBe(200);
    expect(await warm(e2e.server, other.access)).toBe(200);
    expect(await revoke(e2e, tokens.refresh)).toBe(200);
    expectProblem(await list(e2e.server, tokens.access), 401, "unauthorized");
    // Only that grant: another sign-in of the same user and client keeps working.
    expect((await list(e2e.server, other.access)).status).toBe(200);
  });

  it("refuses the access token on the very next request after the user signs out at the server", async () => {
    const browser = new OAuthBrowser(e2e.origin);
    const tokens = await signIn(e2e, client, browser);
    expect(await warm(e2e.server, tokens.access)).toBe(200);
    const page = await (await browser.fetch(`${e2e.issuer}/session/end`)).text();
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(page)?.[1] ?? "";
    const action = new URL(/action="([^"]+\/session\/end\/confirm)"/.exec(page)?.[1] ?? "", e2e.origin);
    const signedOut = await browser.fetch(action, { method: "POST", form: { xsrf, logout: "yes" } });
    expect(signedOut.status).toBeLessThan(400);
    expectProblem(await list(e2e.server, tokens.access), 401, "unauthorized");
    // The refresh token of that sign-in is gone too (docs/auth.md: a sign-out revokes the grants).
    const refresh = await fetch(`${e2e.issuer}/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        client_id: PUBLIC_CLIENT.clientId,
        grant_type: "refresh_token",
        refresh_token: tokens.refresh,
      }),
    });
    expect([refresh.status, ((await refresh.json()) as { error?: string }).error]).toEqual([400, "invalid_grant"]);
  });

  it("refuses the access token on the very next request after its grant expires", async () => {
    const tokens = await signIn(e2e, client);
    expect(await warm(e2e.server, tokens.access)).toBe(200);
    const grantId = (
      JSON.parse(Buffer.from(tokens.access.split(".")[1] ?? "", "base64url").toString()) as {
        grant_id?: string;
      }
    ).grant_id;
    expect(grantId).toEqual(expect.any(String));
    const id = hashToken(grantId ?? "");
    await e2e.database.pool.query(
      "UPDATE oauth_payloads SET expires_at = now() - interval '1 second' WHERE model = 'Grant' AND id = $1",
      [id],
    );
    expectProblem(await list(e2e.server, tokens.access), 401, "unauthorized");
  });

  it("refuses the access token of a code on the very next request after the code is reused", async () => {
    const oidc = await loadOpenIdClient();
    const { url, verifier } = await authorizationRequest(oidc, client);
    const callback = await signInAndConsent(new OAuthBrowser(e2e.origin), url, RUNNER, e2e.origin);
    const redeem = () =>
      fetch(`${e2e.issuer}/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          client_id: PUBLIC_CLIENT.clientId,
          grant_type: "authorization_code",
          code: callback.searchParams.get("code") ?? "",
          code_verifier: verifier,
          redirect_uri: REDIRECT_URI,
        }),
      });
    const first = (await (await redeem()).json()) as { access_token?: string };
    expect(await warm(e2e.server, first.access_token ?? "")).toBe(200);
    expect((await redeem()).status).toBe(400);
    expectProblem(await list(e2e.server, first.access_token ?? ""), 401, "unauthorized");
  });
});

/**
 * Two replicas on one database, behind one PUBLIC_URL: a refresh token revoked through one of
 * them refuses the access token on the very next request through the other.
 */
describe("revocation of a built-in server's grant across replicas", () => {
  let first: OAuthE2eApp;
  let second: E2eApp;
  let client: ClientConfig;

  beforeAll(async () => {
    first = await startOAuthApp("postgres", oauthFixture(), NO_LIMITS);
    second = await startE2eAppOn(first.url, undefined, undefined, { PUBLIC_URL: first.origin, ...NO_LIMITS });
    client = await discoverAs(await loadOpenIdClient(), first.issuer, PUBLIC_CLIENT.clientId);
  }, 120_000);

  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  it("refuses through one replica the access token whose refresh token was revoked through the other", async () => {
    const tokens = await signIn(first, client);
    expect(await warm(second.server, tokens.access)).toBe(200);
    expect(await warm(first.server, tokens.access)).toBe(200);
    expect(await revoke(first, tokens.refresh)).toBe(200);
    expectProblem(await list(second.server, tokens.access), 401, "unauthorized");
    expectProblem(await list(first.server, tokens.access), 401, "unauthorized");
  });
});
