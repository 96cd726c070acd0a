import type { Backend } from "../testing/e2e-app";
import { reportFault } from "../testing/fault-report";
import { oauthFixture, PUBLIC_CLIENT, REDIRECT_URI, RUNNER } from "../testing/oauth-fixture";
import { type OAuthE2eApp, startOAuthApp } from "./testing/oauth-app";
import { OAuthBrowser, signInAndConsent } from "./testing/oauth-browser";
import { authorizationRequest, type ClientConfig, discoverAs, loadOpenIdClient } from "./testing/oauth-client";

const backends: Backend[] = ["postgres", "embedded"];
const PARALLEL = 8;
const CODES = 3;

interface TokenAnswer {
  status: number;
  body: { error?: string; access_token?: string; refresh_token?: string };
}

/**
 * RFC 6749 section 4.1.2: an authorization code is used once; the server denies a second use and
 * revokes what the code gave. The same holds for a rotated refresh token (RFC 9700 section 4.14.2).
 * Checked under concurrency: parallel redemptions that all read the code before any consumes it.
 */
describe.each(backends)("single use of codes and refresh tokens under concurrency on %s", (backend) => {
  let e2e: OAuthE2eApp;
  let spa: ClientConfig;

  beforeAll(async () => {
    const oidc = await loadOpenIdClient();
    // Many sign-ins and token requests from one address: this suite is about reuse, not limits.
    e2e = await startOAuthApp(backend, oauthFixture(), { LOGIN_RATE_LIMIT_ATTEMPTS: "0", OAUTH_RATE_LIMIT_MAX: "0" });
    spa = await discoverAs(oidc, e2e.issuer, PUBLIC_CLIENT.clientId);
  }, 120_000);

  afterAll(async () => {
    await e2e?.close();
  });

  async function token(form: Record<string, string>): Promise<TokenAnswer> {
    const response = await fetch(`${e2e.issuer}/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ client_id: PUBLIC_CLIENT.clientId, ...form }),
    });
    return { status: response.status, body: (await response.json()) as TokenAnswer["body"] };
  }

  async function authorizationCode(): Promise<{ code: string; verifier: string }> {
    const oidc = await loadOpenIdClient();
    const { url, verifier } = await authorizationRequest(oidc, spa);
    const callback = await signInAndConsent(new OAuthBrowser(e2e.origin), url, RUNNER, e2e.origin);
    return { code: callback.searchParams.get("code") ?? "", verifier };
  }

  const redeem = ({ code, verifier }: { code: string; verifier: string }) =>
    token({ grant_type: "authorization_code", code, code_verifier: verifier, redirect_uri: REDIRECT_URI });

  it(`gives tokens for one of ${PARALLEL} parallel redemptions of a code, and revokes the grant`, async () => {
    const rounds: { answers: (number | string)[]; winnerRefresh: (number | string)[] }[] = [];
    for (let round = 0; round < CODES; round++) {
      const code = await authorizationCode();
      const answers = await Promise.all(Array.from({ length: PARALLEL }, () => redeem(code)));
      // The reuse revokes the grant: the refresh token given to the one that won is refused.
      const winner = answers.find((answer) => answer.status === 200)?.body;
      const refresh = await token({ grant_type: "refresh_token", refresh_token: winner?.refresh_token ?? "" });
      rounds.push({
        answers: answers.map((answer) => answer.body.error ?? answer.status).sort(),
        winnerRefresh: [refresh.status, refresh.body.error ?? ""],
      });
    }
    const tokenSets = rounds.map((round) => round.answers.filter((answer) => answer === 200).length);
    reportFault(
      `oauth code reuse (${backend})`,
      `token sets from ${CODES} codes x ${PARALLEL} parallel redemptions: ${tokenSets.join("+")} (want 1 each)`,
    );
    for (const round of rounds) {
      expect(round.answers).toEqual([200, ...Array.from({ length: PARALLEL - 1 }, () => "invalid_grant")]);
      expect(round.winnerRefresh).toEqual([400, "invalid_grant"]);
    }
  });

  it(`rotates a refresh token once for ${PARALLEL} parallel refreshes, and revokes the grant`, async () => {
    const first = await redeem(await authorizationCode());
    expect(first.status).toBe(200);
    const refreshToken = first.body.refresh_token ?? "";
    const answers = await Promise.all(
      Array.from({ length: PARALLEL }, () => token({ grant_type: "refresh_token", refresh_token: refreshToken })),
    );
    const granted = answers.filter((answer) => answer.status === 200);
    reportFault(
      `oauth refresh reuse (${backend})`,
      `new refresh tokens from ${PARALLEL} parallel refreshes of one: ${granted.length} (want 1)`,
    );
    expect(answers.map((answer) => answer.body.error ?? answer.status).sort()).toEqual([
      200,
      ...Array.from({ length: PARALLEL - 1 }, () => "invalid_grant"),
    ]);
    const rotated = granted[0]?.body.refresh_token ?? "";
    const again = await token({ grant_type: "refresh_token", refresh_token: rotated });
    expect([again.status, again.body.error]).toEqual([400, "invalid_grant"]);
  });

  it("still redeems a code once when nothing races it", async () => {
    const code = await authorizationCode();
    const first = await redeem(code);
    expect(first.status).toBe(200);
    const refreshed = await token({ grant_type: "refresh_token", refresh_token: first.body.refresh_token ?? "" });
    expect(refreshed.status).toBe(200);
  });
});
