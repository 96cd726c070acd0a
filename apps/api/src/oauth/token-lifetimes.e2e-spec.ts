import type { Backend } from "../testing/e2e-app";
import { oauthFixture, PUBLIC_CLIENT, RUNNER } from "../testing/oauth-fixture";
import { type OAuthE2eApp, startOAuthApp } from "./testing/oauth-app";
import { OAuthBrowser, signInAndConsent } from "./testing/oauth-browser";
import { authorizationRequest, type ClientConfig, discoverAs, loadOpenIdClient } from "./testing/oauth-client";

const backends: Backend[] = ["postgres", "embedded"];
const DAY_MS = 86_400_000;

/** Only Date is faked: timers, sockets and the database driver run as usual. */
const ONLY_DATE: Parameters<typeof jest.useFakeTimers>[0] = {
  doNotFake: [
    "hrtime",
    "nextTick",
    "performance",
    "queueMicrotask",
    "requestAnimationFrame",
    "cancelAnimationFrame",
    "requestIdleCallback",
    "cancelIdleCallback",
    "setImmediate",
    "clearImmediate",
    "setInterval",
    "clearInterval",
    "setTimeout",
    "clearTimeout",
  ],
};

/**
 * A refresh token lives OAUTH_REFRESH_TOKEN_TTL_SECONDS (14 days) from the sign-in, not as long as
 * the sign-in session (OAUTH_SESSION_TTL_SECONDS, 24 hours): the api's clock is moved to see it.
 */
describe.each(backends)("refresh-token lifetime on %s", (backend) => {
  let e2e: OAuthE2eApp;
  let client: ClientConfig;
  let oidc: Awaited<ReturnType<typeof loadOpenIdClient>>;

  beforeAll(async () => {
    e2e = await startOAuthApp(backend, oauthFixture());
    oidc = await loadOpenIdClient();
    client = await discoverAs(oidc, e2e.issuer, PUBLIC_CLIENT.clientId);
  }, 120_000);

  afterAll(async () => {
    jest.useRealTimers();
    await e2e?.close();
  });

  it("outlives the 24-hour session and ends 14 days after the sign-in", async () => {
    const signedInAt = Date.now();
    const { url, verifier } = await authorizationRequest(oidc, client);
    const callback = await signInAndConsent(new OAuthBrowser(e2e.origin), url, RUNNER, e2e.origin);
    const tokens = await oidc.authorizationCodeGrant(client, callback, { pkceCodeVerifier: verifier });

    jest.useFakeTimers(ONLY_DATE);
    jest.setSystemTime(signedInAt + 2 * DAY_MS);
    const twoDaysLater = await oidc.refreshTokenGrant(client, tokens.refresh_token as string);
    expect(twoDaysLater.access_token).toEqual(expect.any(String));

    jest.setSystemTime(signedInAt + 13 * DAY_MS);
    const thirteenDaysLater = await oidc.refreshTokenGrant(client, twoDaysLater.refresh_token as string);

    jest.setSystemTime(signedInAt + 14 * DAY_MS + 60_000);
    await expect(oidc.refreshTokenGrant(client, thirteenDaysLater.refresh_token as string)).rejects.toMatchObject({
      error: "invalid_grant",
    });
  });
});
