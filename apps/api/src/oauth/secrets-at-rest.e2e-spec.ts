import { randomBytes } from "node:crypto";
import { createDatabase } from "@community/db";
import { createApp } from "../app.factory";
import { OAuthKeysRepository } from "../signing-keys/oauth-keys.repository";
import { type Backend, testConfig } from "../testing/e2e-app";
import { oauthFixture, PUBLIC_CLIENT, RUNNER } from "../testing/oauth-fixture";
import { type OAuthE2eApp, startOAuthApp } from "./testing/oauth-app";
import { OAuthBrowser, signInAndConsent } from "./testing/oauth-browser";
import { authorizationRequest, discoverAs, loadOpenIdClient } from "./testing/oauth-client";

const backends: Backend[] = ["postgres", "embedded"];
const KEY = randomBytes(32).toString("base64");

/**
 * What someone who reads the database gets: no usable refresh token, code or session, and, with
 * OAUTH_KEY_ENCRYPTION_KEY set, no private signing key or cookie secret.
 */
describe.each(backends)("authorization server secrets at rest on %s", (backend) => {
  let e2e: OAuthE2eApp;

  beforeAll(async () => {
    e2e = await startOAuthApp(backend, oauthFixture(), { OAUTH_KEY_ENCRYPTION_KEY: KEY });
  }, 120_000);

  afterAll(async () => {
    await e2e?.close();
  });

  const occurrences = async (secret: string) => {
    const [row] = await e2e.database.prisma.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM oauth_payloads WHERE id = ${secret} OR payload::text LIKE ${`%${secret}%`}`;
    return row?.n;
  };

  it("stores refresh tokens and codes only as hashes, and they still work", async () => {
    const oidc = await loadOpenIdClient();
    const client = await discoverAs(oidc, e2e.issuer, PUBLIC_CLIENT.clientId);
    const { url, verifier } = await authorizationRequest(oidc, client);
    const callback = await signInAndConsent(new OAuthBrowser(e2e.origin), url, RUNNER, e2e.origin);
    const code = callback.searchParams.get("code") ?? "";
    expect(await occurrences(code)).toBe(0);
    const tokens = await oidc.authorizationCodeGrant(client, callback, { pkceCodeVerifier: verifier });
    const refreshToken = tokens.refresh_token as string;
    expect(await occurrences(refreshToken)).toBe(0);
    const refreshed = await oidc.refreshTokenGrant(client, refreshToken);
    expect(await occurrences(refreshed.refresh_token as string)).toBe(0);
    await expect(oidc.refreshTokenGrant(client, refreshToken)).rejects.toMatchObject({ error: "invalid_grant" });
  });

  it("stores the private signing key and the cookie secret encrypted", async () => {
    const rows = await e2e.database.prisma.$queryRaw<{ kind: string; material: string }[]>`
      SELECT kind, material::text AS material FROM oauth_keys`;
    expect(rows.map((row) => row.kind).sort()).toEqual(["cookie", "signing"]);
    for (const row of rows) {
      expect(JSON.parse(row.material)).toEqual({
        sealed: "A256GCM",
        iv: expect.any(String),
        tag: expect.any(String),
        data: expect.any(String),
      });
    }
    const jwks = (await (await fetch(`${e2e.issuer}/jwks`)).json()) as { keys: object[] };
    expect(jwks.keys).toEqual([expect.objectContaining({ kty: "EC", crv: "P-256" })]);
    expect(jwks.keys[0]).not.toHaveProperty("d");
  });

  it("cannot load them without the key that sealed them, or with another", async () => {
    for (const [env, message] of [
      [{}, /oauth_keys holds encrypted keys: set OAUTH_KEY_ENCRYPTION_KEY/],
      [{ OAUTH_KEY_ENCRYPTION_KEY: randomBytes(32).toString("base64") }, /does not open with OAUTH_KEY_ENCRYPTION_KEY/],
    ] as const) {
      const keys = new OAuthKeysRepository(e2e.database, testConfig(env));
      await expect(keys.loadOrCreate()).rejects.toThrow(message);
    }
  });
});

describe("keys stored in clear before a key encryption key is set", () => {
  let e2e: OAuthE2eApp;

  beforeAll(async () => {
    e2e = await startOAuthApp("postgres", oauthFixture());
  }, 120_000);

  afterAll(async () => {
    await e2e?.close();
  });

  it("are sealed on the next start with the key, and stay the same keys", async () => {
    const jwksBefore = await (await fetch(`${e2e.issuer}/jwks`)).json();
    const database = createDatabase({ url: e2e.url, poolMax: 2, onIdleError: () => undefined });
    const app = await createApp(testConfig({ PUBLIC_URL: e2e.origin, OAUTH_KEY_ENCRYPTION_KEY: KEY }), database, {
      logger: false,
    });
    try {
      await app.init();
      const rows = await database.prisma.oAuthKey.findMany();
      expect(rows.map((row) => (row.material as { sealed?: string }).sealed)).toEqual(["A256GCM", "A256GCM"]);
      const response = await fetch(`${e2e.issuer}/jwks`);
      expect(await response.json()).toEqual(jwksBefore);
    } finally {
      await app.close();
      await database.close();
    }
  });
});
