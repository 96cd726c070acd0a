import request from "supertest";
import { expectProblem } from "../testing/contract-assertions";
import type { Backend } from "../testing/e2e-app";
import { oauthFixture, PUBLIC_CLIENT, REDIRECT_URI, RUNNER } from "../testing/oauth-fixture";
import { type OAuthE2eApp, startOAuthApp } from "./testing/oauth-app";
import { OAuthBrowser, signInAndConsent } from "./testing/oauth-browser";
import { authorizationRequest, discoverAs, loadOpenIdClient, type OpenIdClient } from "./testing/oauth-client";

const EVENTS = "/v1/me/community/team/events";
const GUIDES = "/v1/me/community/team/guides";
const backends: Backend[] = ["postgres", "embedded"];

/**
 * The whole authorization-code flow as a client application runs it, with openid-client:
 * discovery, authorization request with PKCE, login and consent in the "browser", code exchange,
 * both list endpoints with the access token, refresh (rotation) and revocation.
 */
describe.each(backends)("authorization-code flow with PKCE on %s", (backend) => {
  let e2e: OAuthE2eApp;
  let oidc: OpenIdClient;

  beforeAll(async () => {
    oidc = await loadOpenIdClient();
    e2e = await startOAuthApp(backend, oauthFixture());
  }, 120_000);

  afterAll(async () => {
    await e2e?.close();
  });

  it("issues a JWT access token that lists the user's team, refreshes with rotation and revokes", async () => {
    const client = await discoverAs(oidc, e2e.issuer, PUBLIC_CLIENT.clientId);
    const metadata = client.serverMetadata();
    expect(metadata.issuer).toBe(e2e.issuer);
    expect(metadata.code_challenge_methods_supported).toEqual(["S256"]);
    expect(metadata.revocation_endpoint).toBe(`${e2e.issuer}/token/revocation`);
    expect(metadata.jwks_uri).toBe(`${e2e.issuer}/jwks`);

    const state = oidc.randomState();
    const { url: authorizationUrl, verifier } = await authorizationRequest(oidc, client, {
      scope: "openid community:read",
      state,
    });
    const callback = await signInAndConsent(new OAuthBrowser(e2e.origin), authorizationUrl, RUNNER, e2e.origin);
    expect(`${callback.origin}${callback.pathname}`).toBe(REDIRECT_URI);

    const tokens = await oidc.authorizationCodeGrant(client, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    expect(tokens.token_type.toLowerCase()).toBe("bearer");
    expect(tokens.expires_in).toBe(600);
    expect(tokens.scope).toBe("community:read");

    const [header, claims] = tokens.access_token
      .split(".")
      .slice(0, 2)
      .map((part) => JSON.parse(Buffer.from(part, "base64url").toString()));
    expect(header).toMatchObject({ typ: "at+jwt", alg: "ES256" });
    expect(claims).toMatchObject({
      iss: e2e.issuer,
      aud: e2e.origin,
      sub: RUNNER.username,
      client_id: PUBLIC_CLIENT.clientId,
      scope: expect.stringContaining("community:read"),
    });
    expect(claims.exp - claims.iat).toBe(600);
    expect(typeof claims.jti).toBe("string");

    const auth = { Authorization: `Bearer ${tokens.access_token}` };
    const events = await request(e2e.server).get(EVENTS).set(auth);
    expect(events.status).toBe(200);
    expect(events.headers["x-total-count"]).toBe("23");
    const guides = await request(e2e.server).get(GUIDES).set(auth);
    expect(guides.status).toBe(200);
    expect(guides.headers["x-total-count"]).toBe("12");

    // Refresh: a new access token, and a new refresh token that replaces the old one.
    const refreshToken = tokens.refresh_token;
    expect(refreshToken).toEqual(expect.any(String));
    const refreshed = await oidc.refreshTokenGrant(client, refreshToken as string);
    expect(refreshed.refresh_token).toEqual(expect.any(String));
    expect(refreshed.refresh_token).not.toBe(refreshToken);
    expect(
      (await request(e2e.server).get(EVENTS).set("Authorization", `Bearer ${refreshed.access_token}`)).status,
    ).toBe(200);

    // Revocation (RFC 7009): the revoked refresh token can no longer be used.
    await oidc.tokenRevocation(client, refreshed.refresh_token as string);
    await expect(oidc.refreshTokenGrant(client, refreshed.refresh_token as string)).rejects.toMatchObject({
      error: "invalid_grant",
    });
  });

  it("answers a wrong password on the login page with 401 and does not let the browser through", async () => {
    const client = await discoverAs(oidc, e2e.issuer, PUBLIC_CLIENT.clientId);
    const { url } = await authorizationRequest(oidc, client);
    const browser = new OAuthBrowser(e2e.origin);
    const step = await browser.follow(await browser.fetch(url), url.toString());
    const html = (await step.page?.text()) ?? "";
    const action = new URL(OAuthBrowser.formAction(html, "/login"), e2e.origin);
    const response = await browser.fetch(action, { method: "POST", form: { ...RUNNER, password: "wrong-password" } });
    expect(response.status).toBe(401);
    expect(await response.text()).toContain("Unknown user id or wrong password.");
  });

  it("answers an opaque fixture token as before, next to JWTs", async () => {
    const response = await request(e2e.server).get(EVENTS).set("Authorization", "Bearer tok-runner-valid");
    expect(response.status).toBe(200);
    expectProblem(await request(e2e.server).get(EVENTS).set("Authorization", "Bearer nope"), 401, "unauthorized");
  });
});
