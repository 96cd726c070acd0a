import type { Backend } from "../testing/e2e-app";
import { oauthFixture, PUBLIC_CLIENT, REDIRECT_URI } from "../testing/oauth-fixture";
import { type OAuthE2eApp, startOAuthApp } from "./testing/oauth-app";

const backends: Backend[] = ["postgres", "embedded"];
const LIMIT = 10;

/**
 * What the authorization server stores for a caller who has proven nothing: pushed authorization
 * requests (RFC 9126, for anyone naming a public client) and the session that the sign-out page
 * starts. Like /oauth/auth, each is limited per address; the pushed request's size is bounded.
 */
describe.each(backends)("rows stored for anonymous callers on %s", (backend) => {
  let e2e: OAuthE2eApp;

  beforeAll(async () => {
    e2e = await startOAuthApp(backend, oauthFixture(), {
      OAUTH_RATE_LIMIT_MAX: String(LIMIT),
      TRUST_PROXY: "loopback",
    });
  }, 120_000);

  afterAll(async () => {
    await e2e?.close();
  });

  const stored = (model = "PushedAuthorizationRequest") => e2e.database.prisma.oAuthPayload.count({ where: { model } });
  const push = (state: string, from: string) =>
    fetch(`${e2e.issuer}/request`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": from },
      body: new URLSearchParams({
        client_id: PUBLIC_CLIENT.clientId,
        response_type: "code",
        redirect_uri: REDIRECT_URI,
        scope: "community:read",
        code_challenge: "a".repeat(43),
        code_challenge_method: "S256",
        state,
      }),
    });

  it("refuses a request body beyond the bound, storing nothing", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 70; i++) statuses.push((await push("x".repeat(20_000), "203.0.113.1")).status);
    expect(statuses.filter((status) => status !== 413)).toEqual([]);
    expect(await stored()).toBe(0);
  });

  it("stores at most OAUTH_RATE_LIMIT_MAX requests per address and window", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 5; i++) statuses.push((await push(`state-${i}`, "203.0.113.2")).status);
    expect(statuses).toEqual([...Array(LIMIT).fill(201), ...Array(5).fill(429)]);
    expect(await stored()).toBe(LIMIT);
  });

  it("stores at most OAUTH_RATE_LIMIT_MAX sign-out sessions per address and window", async () => {
    const before = await stored("Session");
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 5; i++) {
      const response = await fetch(`${e2e.issuer}/session/end`, { headers: { "x-forwarded-for": "203.0.113.3" } });
      statuses.push(response.status);
    }
    expect(statuses).toEqual([...Array(LIMIT).fill(200), ...Array(5).fill(429)]);
    expect((await stored("Session")) - before).toBeLessThanOrEqual(LIMIT);
  });
});
