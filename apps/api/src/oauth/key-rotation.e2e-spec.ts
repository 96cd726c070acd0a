import type { Server } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { createDatabase, type Database } from "@community/db";
import { createTestDatabase, type TestDatabase } from "@community/db/testing";
import { loadFixture } from "@community/fixtures";
import type { INestApplication } from "@nestjs/common";
import { createApp } from "../app.factory";
import { BuiltInIssuerKeys } from "../auth/built-in-issuer-keys";
import { testConfig } from "../testing/e2e-app";
import { freePort } from "../testing/free-port";
import { oauthFixture, PUBLIC_CLIENT, RUNNER } from "../testing/oauth-fixture";
import { AuthorizationServer } from "./authorization-server";
import { rotateKeys } from "./rotate-keys";
import { OAuthBrowser, signInAndConsent } from "./testing/oauth-browser";
import { authorizationRequest, discoverAs, loadOpenIdClient } from "./testing/oauth-client";

const OVERLAP_SECONDS = 6;
const kidOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split(".")[0] ?? "", "base64url").toString()).kid as string;

/**
 * `pnpm oauth:rotate-keys`: a new key is published and signs, the old one keeps verifying the
 * tokens it signed for the overlap, then leaves the JWKS; the running api follows at its next
 * reload of the keys, without a restart.
 */
describe("signing-key rotation", () => {
  let testDb: TestDatabase;
  let port: number;
  let origin: string;
  let running: { app: INestApplication; database: Database } | undefined;

  async function restart() {
    await stop();
    const config = testConfig({ PUBLIC_URL: origin });
    const database = createDatabase({ url: testDb.url, poolMax: 4, onIdleError: () => undefined });
    const app = await createApp(config, database, { logger: false });
    await app.init();
    await new Promise<void>((resolve) => (app.getHttpServer() as Server).listen(port, "127.0.0.1", resolve));
    running = { app, database };
  }

  /** What every replica does each OAUTH_KEYS_RELOAD_SECONDS, run now instead of waiting for it. */
  async function reload() {
    await running?.app.get(AuthorizationServer).reloadKeys();
    await running?.app.get(BuiltInIssuerKeys).reload();
  }

  async function stop() {
    await running?.app.close();
    await running?.database.close();
    running = undefined;
  }

  async function cli(...args: string[]): Promise<string> {
    const lines: string[] = [];
    const code = await rotateKeys(args, { DATABASE_URL: testDb.url, LOG_LEVEL: "silent" }, (line) => lines.push(line));
    expect(code).toBe(0);
    return lines.join("\n");
  }

  const jwksKids = async () =>
    ((await (await fetch(`${origin}/oauth/jwks`)).json()) as { keys: { kid: string }[] }).keys.map((key) => key.kid);
  const listEvents = async (token: string) =>
    (await fetch(`${origin}/v1/me/community/team/events`, { headers: { authorization: `Bearer ${token}` } })).status;

  async function accessToken(): Promise<string> {
    const oidc = await loadOpenIdClient();
    const client = await discoverAs(oidc, `${origin}/oauth`, PUBLIC_CLIENT.clientId);
    const { url, verifier } = await authorizationRequest(oidc, client);
    const callback = await signInAndConsent(new OAuthBrowser(origin), url, RUNNER, origin);
    return (await oidc.authorizationCodeGrant(client, callback, { pkceCodeVerifier: verifier })).access_token;
  }

  beforeAll(async () => {
    testDb = await createTestDatabase("api_oauth_rotation");
    port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    const database = createDatabase({ url: testDb.url, poolMax: 2 });
    await loadFixture(database.prisma, oauthFixture());
    await database.close();
  }, 120_000);

  afterAll(async () => {
    await stop();
    await testDb?.drop();
  });

  it("publishes the new key, signs with it, verifies the old key's tokens until the overlap ends", async () => {
    await restart();
    const [oldKid] = await jwksKids();
    const before = await accessToken();
    expect(kidOf(before)).toBe(oldKid);

    const output = await cli("--overlap", String(OVERLAP_SECONDS));
    const rotatedAt = Date.now();
    const newKid = /added signing key (\S+),/.exec(output)?.[1];
    expect(newKid).toEqual(expect.any(String));
    expect(output).toContain(`key(s) ${oldKid} verify until`);

    await reload();
    expect((await jwksKids()).sort()).toEqual([oldKid, newKid].sort());
    const after = await accessToken();
    expect(kidOf(after)).toBe(newKid);
    // Both verify during the overlap.
    expect(await listEvents(before)).toBe(200);
    expect(await listEvents(after)).toBe(200);

    // Too early: nothing to retire yet.
    expect(await cli("--retire")).toBe("no retired signing key to delete");
    await sleep(Math.max(0, rotatedAt + OVERLAP_SECONDS * 1000 + 200 - Date.now()));
    expect(await cli("--retire")).toBe(`deleted retired signing key(s) ${oldKid}`);

    await reload();
    expect(await jwksKids()).toEqual([newKid]);
    expect(await listEvents(before)).toBe(401);
    expect(await listEvents(after)).toBe(200);
  });

  it("refuses an argument it does not understand, with the usage", async () => {
    const lines: string[] = [];
    expect(await rotateKeys(["--overlap", "soon"], { DATABASE_URL: testDb.url }, (line) => lines.push(line))).toBe(2);
    expect(lines.join("\n")).toMatch(/--overlap must be a whole number of seconds.*got "soon"[\s\S]*usage:/);
  });
});
