import { hashToken } from "@community/db";
import { replicasSharingRedis } from "../rate-limit/testing/redis-keys";
import { reportFault } from "../testing/fault-report";
import { oauthFixture, PUBLIC_CLIENT, REDIRECT_URI, RUNNER } from "../testing/oauth-fixture";
import { type OAuthE2eApp, startOAuthApp } from "./testing/oauth-app";
import { OAuthBrowser, signInAndConsent } from "./testing/oauth-browser";
import { authorizationRequest, type ClientConfig, discoverAs, loadOpenIdClient } from "./testing/oauth-client";

const GUESSES = 40;

/** A browser at `address` (the app trusts X-Forwarded-For from loopback) on a pending sign-in. */
async function loginForm(e2e: OAuthE2eApp, spa: ClientConfig, address: string) {
  const oidc = await loadOpenIdClient();
  const { url } = await authorizationRequest(oidc, spa);
  const browser = new OAuthBrowser(e2e.origin, { "x-forwarded-for": address });
  const action = await browser.openSignIn(url);
  const post = (form: { username: string; password: string }) => browser.fetch(action, { method: "POST", form });
  return { browser, post };
}

describe("sign-in, authorization and token endpoints under guessing", () => {
  let e2e: OAuthE2eApp;
  let spa: ClientConfig;

  beforeAll(async () => {
    const oidc = await loadOpenIdClient();
    e2e = await startOAuthApp("postgres", oauthFixture(), { TRUST_PROXY: "loopback", OAUTH_RATE_LIMIT_MAX: "5" });
    spa = await discoverAs(oidc, e2e.issuer, PUBLIC_CLIENT.clientId);
  }, 120_000);

  afterAll(async () => {
    await e2e?.close();
  });

  it("checks 5 passwords of an account at an address, then shows the login page with 429 and Retry-After", async () => {
    const { post } = await loginForm(e2e, spa, "203.0.113.10");
    const answers = await Promise.all(
      Array.from({ length: GUESSES }, (_, i) => post({ username: RUNNER.username, password: `guess-${i}` })),
    );
    const statuses = answers.map((answer) => answer.status);
    const checked = statuses.filter((status) => status === 401).length;
    reportFault("oauth login guessing", `passwords checked of ${GUESSES} parallel guesses for one account: ${checked}`);
    expect(statuses.sort()).toEqual([
      ...Array.from({ length: 5 }, () => 401),
      ...Array.from({ length: GUESSES - 5 }, () => 429),
    ]);

    const limited = answers.find((answer) => answer.status === 429) as Response;
    expect(limited.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const retryAfter = Number(limited.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    const page = await limited.text();
    expect(page).toContain(`Too many sign-in attempts. Try again in ${retryAfter} seconds.`);
    expect(page).toContain('action="/oauth/interaction/');

    // Locked at this address, even with the right password...
    expect((await post(RUNNER)).status).toBe(429);
    // ...but not from the user's own address: the attacker cannot lock the user out.
    const oidc = await loadOpenIdClient();
    const { url } = await authorizationRequest(oidc, spa);
    const browser = new OAuthBrowser(e2e.origin, { "x-forwarded-for": "198.51.100.7" });
    const callback = await signInAndConsent(browser, url, RUNNER, e2e.origin);
    expect(`${callback.origin}${callback.pathname}`).toBe(REDIRECT_URI);
    expect(callback.searchParams.get("code")).toEqual(expect.any(String));
  });

  it("limits one address to 30 attempts a minute whatever the account", async () => {
    const { post } = await loginForm(e2e, spa, "203.0.113.20");
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) statuses.push((await post({ username: `nobody-${i}`, password: "x" })).status);
    expect(statuses).toEqual([...Array.from({ length: 30 }, () => 401), 429]);
  });

  it("limits the authorization endpoint per address with a 429 page", async () => {
    const oidc = await loadOpenIdClient();
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 6; i++) {
      const { url } = await authorizationRequest(oidc, spa);
      last = await fetch(url, { redirect: "manual", headers: { "x-forwarded-for": "203.0.113.30" } });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([303, 303, 303, 303, 303, 429]);
    expect(last?.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(Number(last?.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await last?.text()).toContain("More than 5 requests in 60 s");
  });

  it("limits the token endpoint per address with a 429 rate-limited problem", async () => {
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 6; i++) {
      last = await fetch(`${e2e.issuer}/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": "203.0.113.40" },
        body: new URLSearchParams({ client_id: PUBLIC_CLIENT.clientId, grant_type: "authorization_code", code: "x" }),
      });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([400, 400, 400, 400, 400, 429]);
    expect(last?.headers.get("content-type")).toBe("application/problem+json; charset=utf-8");
    expect(Number(last?.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await last?.json()).toMatchObject({ status: 429, type: expect.stringMatching(/\/rate-limited$/) });
  });
});

describe("sign-in limits in Redis, shared by two replicas", () => {
  const shared = replicasSharingRedis((env) => startOAuthApp("postgres", oauthFixture(), env), {
    TRUST_PROXY: "loopback",
  });

  it("counts the attempts on either replica against one budget, keyed by a hash of the account", async () => {
    const oidc = await loadOpenIdClient();
    const forms = await Promise.all(
      shared.replicas.map(async (replica) =>
        loginForm(replica, await discoverAs(oidc, replica.issuer, PUBLIC_CLIENT.clientId), "203.0.113.50"),
      ),
    );
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const form = forms[i % 2] as (typeof forms)[number];
      statuses.push((await form.post({ username: RUNNER.username, password: `guess-${i}` })).status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    const keys = (await shared.redis.keys(`${shared.prefix}*`)).join("\n");
    expect(keys).toContain(hashToken(RUNNER.username));
    expect(keys).not.toContain(RUNNER.username);
  });
});
