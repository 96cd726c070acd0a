import type { Server } from "node:http";
import { createDatabase, type Database } from "@community/db";
import { createTestDatabase, type TestDatabase } from "@community/db/testing";
import { loadFixture } from "@community/fixtures";
import type { INestApplication } from "@nestjs/common";
import { createApp } from "../app.factory";
import { testConfig } from "../testing/e2e-app";
import { freePort } from "../testing/free-port";
import { oauthFixture, PUBLIC_CLIENT, RUNNER } from "../testing/oauth-fixture";
import { OAuthBrowser, signInAndConsent } from "./testing/oauth-browser";
import { authorizationRequest, discoverAs, loadOpenIdClient } from "./testing/oauth-client";

/**
 * The authorization server keeps its keys and its grants in the database: after a restart (a new
 * process, or another replica on the same database) it signs with the same key and honours the
 * refresh tokens it issued before.
 */
describe("authorization server state across restarts", () => {
  let testDb: TestDatabase;
  let port: number;
  const running: { app: INestApplication; database: Database }[] = [];

  async function start() {
    const config = testConfig({ PUBLIC_URL: `http://127.0.0.1:${port}` });
    const database = createDatabase({ url: testDb.url, poolMax: 4, onIdleError: () => undefined });
    const app = await createApp(config, database, { logger: false });
    await app.init();
    await new Promise<void>((resolve) => (app.getHttpServer() as Server).listen(port, "127.0.0.1", resolve));
    running.push({ app, database });
    return { app, database };
  }

  async function stop() {
    const last = running.pop();
    await last?.app.close();
    await last?.database.close();
  }

  beforeAll(async () => {
    testDb = await createTestDatabase("api_oauth_restart");
    port = await freePort();
    const database = createDatabase({ url: testDb.url, poolMax: 2 });
    await loadFixture(database.prisma, oauthFixture());
    await database.close();
  }, 120_000);

  afterAll(async () => {
    while (running.length > 0) await stop();
    await testDb?.drop();
  });

  it("keeps the signing key (public in the JWKS only) and the refresh tokens", async () => {
    const oidc = await loadOpenIdClient();
    const issuer = new URL(`http://127.0.0.1:${port}/oauth`);
    await start();
    const jwksBefore = (await (await fetch(`${issuer}/jwks`)).json()) as { keys: Record<string, unknown>[] };
    expect(jwksBefore.keys).toHaveLength(1);
    expect(jwksBefore.keys[0]).not.toHaveProperty("d");
    expect(jwksBefore.keys[0]).toMatchObject({ kty: "EC", crv: "P-256", alg: "ES256", use: "sig" });

    const client = await discoverAs(oidc, issuer, PUBLIC_CLIENT.clientId);
    const { url, verifier } = await authorizationRequest(oidc, client);
    const callback = await signInAndConsent(new OAuthBrowser(issuer.origin), url, RUNNER, issuer.origin);
    const tokens = await oidc.authorizationCodeGrant(client, callback, { pkceCodeVerifier: verifier });
    await stop();

    await start();
    const jwksAfter = await (await fetch(`${issuer}/jwks`)).json();
    expect(jwksAfter).toEqual(jwksBefore);
    // The access token of the first process still works against the second.
    const events = await fetch(`http://127.0.0.1:${port}/v1/me/community/team/events`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(events.status).toBe(200);
    const refreshed = await oidc.refreshTokenGrant(client, tokens.refresh_token as string);
    expect(refreshed.access_token.split(".")[0]).toBe(tokens.access_token.split(".")[0]);
  });
});
