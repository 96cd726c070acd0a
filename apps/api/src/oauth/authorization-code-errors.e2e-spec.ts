import { setTimeout as sleep } from "node:timers/promises";
import { CONFIDENTIAL_CLIENT, oauthFixture, PUBLIC_CLIENT, REDIRECT_URI, RUNNER } from "../testing/oauth-fixture";
import { type OAuthE2eApp, startOAuthApp } from "./testing/oauth-app";
import { OAuthBrowser, signInAndConsent } from "./testing/oauth-browser";
import {
  authorizationRequest,
  type ClientConfig,
  discoverAs,
  loadOpenIdClient,
  type OpenIdClient,
} from "./testing/oauth-client";

/** The ways a client can get the flow wrong, each refused by the built-in authorization server. */
describe("authorization-code flow: refusals", () => {
  let e2e: OAuthE2eApp;
  let oidc: OpenIdClient;
  let spa: ClientConfig;

  beforeAll(async () => {
    oidc = await loadOpenIdClient();
    e2e = await startOAuthApp("postgres", oauthFixture());
    spa = await discoverAs(oidc, e2e.issuer, PUBLIC_CLIENT.clientId);
  }, 120_000);

  afterAll(async () => {
    await e2e?.close();
  });

  /** Runs the browser part of the flow; returns the callback URL and the PKCE verifier. */
  async function authorize(client: ClientConfig, app: OAuthE2eApp = e2e) {
    const state = oidc.randomState();
    const { url, verifier } = await authorizationRequest(oidc, client, { state });
    const callback = await signInAndConsent(new OAuthBrowser(app.origin), url, RUNNER, app.origin);
    return { callback, verifier, state };
  }

  it("refuses a redirect URI the client did not register, without redirecting to it", async () => {
    const { url } = await authorizationRequest(oidc, spa, { redirect_uri: "http://evil.test/callback" });
    const response = await fetch(url, { redirect: "manual" });
    expect(response.status).toBe(400);
    expect(response.headers.get("location")).toBeNull();
    const page = await response.text();
    expect(page).toContain("invalid_redirect_uri");
    expect(page).not.toContain("evil.test");
  });

  it("refuses an authorization request without PKCE, and the plain method", async () => {
    const base = { redirect_uri: REDIRECT_URI, scope: "community:read", state: "s" };
    const withoutPkce = await fetch(oidc.buildAuthorizationUrl(spa, base), { redirect: "manual" });
    const plain = await fetch(
      oidc.buildAuthorizationUrl(spa, { ...base, code_challenge: "a".repeat(43), code_challenge_method: "plain" }),
      { redirect: "manual" },
    );
    for (const response of [withoutPkce, plain]) {
      // Errors after the redirect URI is validated go back to the client (RFC 6749 section 4.1.2.1).
      const location = new URL(response.headers.get("location") ?? "");
      expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
      expect(location.searchParams.get("error")).toBe("invalid_request");
      expect(location.searchParams.get("code")).toBeNull();
    }
  });

  it("shows an unknown or unbound sign-in as an error page, not a JSON problem", async () => {
    const response = await fetch(`${e2e.origin}/oauth/interaction/no-such-interaction`, { redirect: "manual" });
    expect(response.status).toBe(400);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(await response.text()).toContain("Cannot continue");
  });

  it("answers a login form without a user id with a page naming the field", async () => {
    const { url } = await authorizationRequest(oidc, spa);
    const browser = new OAuthBrowser(e2e.origin);
    const step = await browser.follow(await browser.fetch(url), url.toString());
    const action = new URL(OAuthBrowser.formAction((await step.page?.text()) ?? "", "/login"), e2e.origin);
    const response = await browser.fetch(action, { method: "POST", form: { username: "  ", password: "x" } });
    expect(response.status).toBe(400);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await response.text()).toContain("username must not be empty");
  });

  it("refuses a code exchanged with the wrong code verifier", async () => {
    const { callback, state } = await authorize(spa);
    await expect(
      oidc.authorizationCodeGrant(spa, callback, {
        pkceCodeVerifier: oidc.randomPKCECodeVerifier(),
        expectedState: state,
      }),
    ).rejects.toMatchObject({ error: "invalid_grant" });
  });

  it("refuses a code used twice, and revokes what the first exchange issued", async () => {
    const { callback, verifier, state } = await authorize(spa);
    const first = await oidc.authorizationCodeGrant(spa, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    await expect(
      oidc.authorizationCodeGrant(spa, callback, { pkceCodeVerifier: verifier, expectedState: state }),
    ).rejects.toMatchObject({ error: "invalid_grant" });
    await expect(oidc.refreshTokenGrant(spa, first.refresh_token as string)).rejects.toMatchObject({
      error: "invalid_grant",
    });
  });

  it("refuses an expired code", async () => {
    // A server of its own with one-second codes, so that expiry comes without a clock of our own.
    const shortLived = await startOAuthApp("postgres", oauthFixture(), { OAUTH_CODE_TTL_SECONDS: "1" });
    try {
      const client = await discoverAs(oidc, shortLived.issuer, PUBLIC_CLIENT.clientId);
      const { callback, verifier, state } = await authorize(client, shortLived);
      await sleep(2_100);
      await expect(
        oidc.authorizationCodeGrant(client, callback, { pkceCodeVerifier: verifier, expectedState: state }),
      ).rejects.toMatchObject({ error: "invalid_grant" });
    } finally {
      await shortLived.close();
    }
  });

  it("authenticates a confidential client by its secret and refuses a wrong one", async () => {
    const discover = (secret: string) =>
      discoverAs(oidc, e2e.issuer, CONFIDENTIAL_CLIENT.clientId, oidc.ClientSecretBasic(secret));
    const good = await discover(CONFIDENTIAL_CLIENT.clientSecret);
    const wrong = await discover(`${CONFIDENTIAL_CLIENT.clientSecret}x`);

    const refused = await authorize(wrong);
    const error: { status?: number; response?: Response } = await oidc
      .authorizationCodeGrant(wrong, refused.callback, {
        pkceCodeVerifier: refused.verifier,
        expectedState: refused.state,
      })
      .then(
        () => ({}),
        (e: unknown) => e as { status?: number; response?: Response },
      );
    // A failed client_secret_basic authentication is a 401 with a Basic challenge (RFC 6749 section 5.2).
    expect(error.status).toBe(401);
    expect(await error.response?.json()).toMatchObject({ error: "invalid_client" });

    const accepted = await authorize(good);
    const tokens = await oidc.authorizationCodeGrant(good, accepted.callback, {
      pkceCodeVerifier: accepted.verifier,
      expectedState: accepted.state,
    });
    expect(tokens.access_token.split(".")).toHaveLength(3);
  });

  it("refuses a refresh token presented by another client", async () => {
    const { callback, verifier, state } = await authorize(spa);
    const tokens = await oidc.authorizationCodeGrant(spa, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    const backend = await discoverAs(
      oidc,
      e2e.issuer,
      CONFIDENTIAL_CLIENT.clientId,
      oidc.ClientSecretBasic(CONFIDENTIAL_CLIENT.clientSecret),
    );
    await expect(oidc.refreshTokenGrant(backend, tokens.refresh_token as string)).rejects.toMatchObject({
      error: "invalid_grant",
    });
  });
});
