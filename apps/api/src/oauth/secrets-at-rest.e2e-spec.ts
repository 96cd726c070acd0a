import { generateKeyPairSync, randomBytes, randomUUID } from "node:crypto";
import { createDatabase, hashToken } from "@community/db";
import { createApp } from "../app.factory";
import { BuiltInIssuerKeys } from "../auth/built-in-issuer-keys";
import { type JWK, loadJose } from "../auth/jose";
import { OAuthKeysRepository } from "../signing-keys/oauth-keys.repository";
import { type Backend, testConfig } from "../testing/e2e-app";
import { oauthFixture, PUBLIC_CLIENT, RUNNER } from "../testing/oauth-fixture";
import { appForSuite } from "../testing/suite-app";
import { AuthorizationServer } from "./authorization-server";
import { rotateKeys } from "./rotate-keys";
import { plantGrant } from "./testing/grants";
import { startOAuthApp } from "./testing/oauth-app";
import { OAuthBrowser, signInAndConsent } from "./testing/oauth-browser";
import { authorizationRequest, discoverAs, loadOpenIdClient } from "./testing/oauth-client";

const backends: Backend[] = ["postgres", "embedded"];
const KEY = randomBytes(32).toString("base64");

/**
 * What someone who reads the database gets: no usable refresh token, code or session, and, with
 * OAUTH_KEY_ENCRYPTION_KEY set, no private signing key or cookie secret.
 */
describe.each(backends)("authorization server secrets at rest on %s", (backend) => {
  const e2e = appForSuite(() => startOAuthApp(backend, oauthFixture(), { OAUTH_KEY_ENCRYPTION_KEY: KEY }), 120_000);

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

  it("keeps no session cookie in a pending interaction, only its hash", async () => {
    const oidc = await loadOpenIdClient();
    const client = await discoverAs(oidc, e2e.issuer, PUBLIC_CLIENT.clientId);
    const { url } = await authorizationRequest(oidc, client);
    const browser = new OAuthBrowser(e2e.origin);
    const login = await browser.openSignIn(url);
    // Signed in, at the consent page: its interaction is bound to the new session.
    const consent = await browser.follow(
      await browser.fetch(login, { method: "POST", form: RUNNER }),
      login.toString(),
    );
    expect(await consent.page?.text()).toContain('/confirm"');
    const rows = await e2e.database.prisma.$queryRaw<{ cookie: string }[]>`
      SELECT payload->'session'->>'cookie' AS cookie FROM oauth_payloads
      WHERE model = 'Interaction' AND payload->'session'->>'cookie' IS NOT NULL`;
    expect(rows.length).toBeGreaterThan(0);
    const sessionIds = new Set(
      (await e2e.database.prisma.oAuthPayload.findMany({ where: { model: "Session" } })).map((row) => row.id),
    );
    for (const { cookie } of rows) {
      // Stored in clear, the value would be a cookie whose hash is a session's id.
      expect(sessionIds.has(hashToken(cookie))).toBe(false);
      expect(sessionIds.has(cookie)).toBe(true);
    }
  });

  it("neither publishes nor verifies with a key row planted in clear", async () => {
    const jwk = {
      ...generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({ format: "jwk" }),
      kid: "planted",
      alg: "ES256",
      use: "sig",
    };
    await e2e.database.prisma.oAuthKey.create({ data: { id: "planted", kind: "signing", material: jwk } });
    await e2e.app.get(AuthorizationServer).reloadKeys();
    await e2e.app.get(BuiltInIssuerKeys).reload();
    const kids = ((await (await fetch(`${e2e.issuer}/jwks`)).json()) as { keys: { kid: string }[] }).keys;
    expect(kids.map((key) => key.kid)).not.toContain("planted");
    const row = await e2e.database.prisma.oAuthKey.findUniqueOrThrow({ where: { id: "planted" } });
    expect(row.material).not.toHaveProperty("sealed");
    const jose = await loadJose();
    const now = Math.floor(Date.now() / 1000);
    // Of a grant that exists: the key alone decides.
    const grant_id = await plantGrant(e2e.database);
    const forged = await new jose.SignJWT({ sub: RUNNER.username, client_id: "x", scope: "community:read", grant_id })
      .setProtectedHeader({ alg: "ES256", typ: "at+jwt", kid: "planted" })
      .setIssuer(e2e.issuer)
      .setAudience(e2e.origin)
      .setIssuedAt(now)
      .setExpirationTime(now + 300)
      .setJti(randomUUID())
      .sign(await jose.importJWK(jwk as JWK, "ES256"));
    const response = await fetch(`${e2e.origin}/v1/me/community/team/events`, {
      headers: { authorization: `Bearer ${forged}` },
    });
    expect(response.status).toBe(401);
    await e2e.database.prisma.oAuthKey.delete({ where: { id: "planted" } });
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
  const e2e = appForSuite(() => startOAuthApp("postgres", oauthFixture()), 120_000);

  it("stop a start with the key until `oauth:rotate-keys --seal` seals them, staying the same keys", async () => {
    const jwksBefore = await (await fetch(`${e2e.issuer}/jwks`)).json();
    const database = createDatabase({ url: e2e.url, poolMax: 2, onIdleError: () => undefined });
    const config = testConfig({ PUBLIC_URL: e2e.origin, OAUTH_KEY_ENCRYPTION_KEY: KEY });
    // Sealing them on start would also seal a row someone planted in clear: it takes the command.
    await expect(new OAuthKeysRepository(database, config).loadOrCreate()).rejects.toThrow(
      /oauth_keys holds keys stored in clear while OAUTH_KEY_ENCRYPTION_KEY is set: seal them with pnpm oauth:rotate-keys --seal/,
    );
    const lines: string[] = [];
    const env = { DATABASE_URL: e2e.url, OAUTH_KEY_ENCRYPTION_KEY: KEY, LOG_LEVEL: "silent" };
    expect(await rotateKeys(["--seal"], env, (line) => lines.push(line))).toBe(0);
    expect(lines.join("\n")).toMatch(/^sealed 2 key row\(s\) stored in clear: /);
    const app = await createApp(config, database, { logger: false });
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
