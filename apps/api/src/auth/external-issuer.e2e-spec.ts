import { randomUUID } from "node:crypto";
import request from "supertest";
import { expectProblem } from "../testing/contract-assertions";
import { startE2eApp } from "../testing/e2e-app";
import { oauthFixture } from "../testing/oauth-fixture";
import { appForSuite } from "../testing/suite-app";
import { TestIssuer } from "./testing/test-issuer";

const EVENTS = "/v1/me/community/team/events";
const AUDIENCE = "https://community-api.example.test";

/**
 * The api as the resource server of an external identity provider: a second, independent issuer
 * on loopback (discovery + JWKS), configured only through OAUTH_ISSUER and OAUTH_AUDIENCE.
 */
describe("JWT access tokens of an external issuer", () => {
  const idp = appForSuite(async () => {
    const issuer = await TestIssuer.start();
    await issuer.addKey("key-1");
    return issuer;
  });
  const e2e = appForSuite(
    () =>
      startE2eApp("postgres", oauthFixture(), {
        // The built-in server stays on: tokens of both issuers are accepted side by side, the operator
        // having declared that the provider's subjects are the local user ids.
        env: {
          OAUTH_ISSUER: idp.issuer,
          OAUTH_AUDIENCE: AUDIENCE,
          OAUTH_EXTERNAL_SUBJECTS: "local",
          OAUTH_JWKS_COOLDOWN_SECONDS: "0",
        },
      }),
    120_000,
  );

  const now = () => Math.floor(Date.now() / 1000);
  const claims = (overrides: Record<string, unknown> = {}) => ({
    iss: idp.issuer,
    aud: AUDIENCE,
    sub: "user_climber",
    client_id: "partner-app",
    scope: "openid community:read",
    iat: now(),
    exp: now() + 300,
    jti: randomUUID(),
    ...overrides,
  });
  const call = (token: string) => request(e2e.server).get(EVENTS).set("Authorization", `Bearer ${token}`);

  it("accepts its tokens, finding the JWKS through discovery and the user by sub", async () => {
    const response = await call(await idp.sign("key-1", claims()));
    expect(response.status).toBe(200);
    // user_climber's team has 5 events in the contract fixture; the runner's team has 23.
    expect(response.headers["x-total-count"]).not.toBe("23");
    expect(response.body.guides.length).toBeGreaterThan(0);
  });

  it("caches the keys: further tokens with a known kid fetch nothing", async () => {
    await call(await idp.sign("key-1", claims()));
    const before = idp.jwksRequests;
    for (let i = 0; i < 3; i++) expect((await call(await idp.sign("key-1", claims()))).status).toBe(200);
    expect(idp.jwksRequests).toBe(before);
  });

  it("picks up a rotated key (new kid) and stops accepting a key that was withdrawn", async () => {
    const signedWithOldKey = await idp.sign("key-1", claims());
    expect((await call(signedWithOldKey)).status).toBe(200);

    await idp.addKey("key-2", "RS256");
    idp.removeKey("key-1");
    expect((await call(await idp.sign("key-2", claims()))).status).toBe(200);
    // The refetch that brought key-2 also dropped key-1.
    expectProblem(await call(signedWithOldKey), 401, "unauthorized");
  });

  it.each([
    ["for another audience", { aud: "https://someone-else.example.test" }],
    ["naming another issuer", { iss: "https://not-the-idp.example.test" }],
    ["expired", { exp: now() - 3600 }],
    ["issued 100 years ahead (and expiring in 200)", { iat: now() + 3_153_600_000, exp: now() + 6_307_200_000 }],
    ["issued a minute ahead (beyond the clock skew)", { iat: now() + 90, exp: now() + 300 }],
    ["living longer than OAUTH_MAX_TOKEN_LIFETIME_SECONDS", { exp: now() + 86_400 * 2 }],
    ["without iat living longer than the cap", { iat: undefined, exp: now() + 86_400 * 2 }],
  ])("refuses a token %s", async (_case, overrides) => {
    const response = await call(await idp.sign("key-2", claims(overrides)));
    expectProblem(response, 401, "unauthorized");
    expect(response.headers["www-authenticate"]).toMatch(/error="invalid_token"/);
  });

  it("refuses a token whose kid is in no JWKS of the issuer", async () => {
    await idp.addKey("never-published");
    const token = await idp.sign("never-published", claims());
    idp.removeKey("never-published");
    expectProblem(await call(token), 401, "unauthorized");
  });

  it("refuses typ JWT unless OAUTH_ALLOW_JWT_TYP is set", async () => {
    expectProblem(await call(await idp.sign("key-2", claims(), { typ: "JWT" })), 401, "unauthorized");
  });

  it("reads scopes from scp too (Okta: an array, Entra ID: a string), and needs community:read", async () => {
    const { scope: _scope, ...rest } = claims();
    expect((await call(await idp.sign("key-2", { ...rest, scp: ["community:read"] }))).status).toBe(200);
    expect((await call(await idp.sign("key-2", { ...rest, scp: "openid community:read" }))).status).toBe(200);
    const forbidden = await call(await idp.sign("key-2", { ...rest, scp: ["openid"] }));
    expectProblem(forbidden, 403, "insufficient-scope");
    expect(forbidden.headers["www-authenticate"]).toContain('scope="community:read"');
  });

  it("takes the client id from azp when client_id is absent", async () => {
    const { client_id: _clientId, ...rest } = claims();
    expect((await call(await idp.sign("key-2", { ...rest, azp: "partner-app" }))).status).toBe(200);
  });
});

describe("an external issuer beside the built-in server", () => {
  it("is refused at start-up unless OAUTH_EXTERNAL_SUBJECTS declares its subjects local users", async () => {
    const idp = await TestIssuer.start();
    try {
      // Before, the api started, and the provider's token with sub=user_runner got Sam's team list.
      await expect(
        startE2eApp("postgres", oauthFixture(), { env: { OAUTH_ISSUER: idp.issuer, OAUTH_AUDIENCE: AUDIENCE } }),
      ).rejects.toThrow(/declare OAUTH_EXTERNAL_SUBJECTS=local \(its sub is a users\.id\), or set AUTH_SERVER=false/);
    } finally {
      await idp.close();
    }
  });
});

describe("an external issuer with OAUTH_JWKS_URI and OAUTH_ALLOW_JWT_TYP", () => {
  it("uses the configured JWKS without discovery and accepts typ JWT", async () => {
    const idp = await TestIssuer.start();
    await idp.addKey("k");
    const e2e = await startE2eApp("postgres", oauthFixture(), {
      env: {
        AUTH_SERVER: "false",
        OAUTH_ISSUER: "https://idp.example.test/realms/main",
        OAUTH_AUDIENCE: "account",
        OAUTH_JWKS_URI: `${idp.issuer}/keys`,
        OAUTH_ALLOW_JWT_TYP: "true",
      },
    });
    try {
      const now = Math.floor(Date.now() / 1000);
      const token = await idp.sign(
        "k",
        {
          iss: "https://idp.example.test/realms/main",
          aud: ["account", "other"],
          sub: "user_runner",
          azp: "keycloak-client",
          scope: "community:read",
          iat: now,
          exp: now + 300,
        },
        { typ: "JWT" },
      );
      const response = await request(e2e.server).get(EVENTS).set("Authorization", `Bearer ${token}`);
      expect(response.status).toBe(200);
      expect(response.headers["x-total-count"]).toBe("23");
      // With AUTH_SERVER=false there is no built-in server.
      expect((await request(e2e.server).get("/oauth/.well-known/openid-configuration")).status).toBe(404);
    } finally {
      await e2e.close();
      await idp.close();
    }
  });

  it("answers 401, not 500, while the issuer cannot be reached", async () => {
    const idp = await TestIssuer.start();
    await idp.addKey("k");
    const issuer = idp.issuer;
    const e2e = await startE2eApp("postgres", oauthFixture(), {
      env: { AUTH_SERVER: "false", OAUTH_ISSUER: issuer, OAUTH_AUDIENCE: "api" },
    });
    try {
      const now = Math.floor(Date.now() / 1000);
      const token = await idp.sign("k", {
        iss: issuer,
        aud: "api",
        sub: "user_runner",
        client_id: "c",
        scope: "community:read",
        exp: now + 300,
      });
      await idp.close();
      const response = await request(e2e.server).get(EVENTS).set("Authorization", `Bearer ${token}`);
      expectProblem(response, 401, "unauthorized");
    } finally {
      await e2e.close();
    }
  });
});
