import { randomUUID } from "node:crypto";
import { BuiltInIssuerKeys } from "../auth/built-in-issuer-keys";
import { type JWK, loadJose } from "../auth/jose";
import { OAuthKeysRepository } from "../signing-keys/oauth-keys.repository";
import type { Backend } from "../testing/e2e-app";
import { reportFault } from "../testing/fault-report";
import { oauthFixture, PUBLIC_CLIENT, RUNNER } from "../testing/oauth-fixture";
import { appForSuite } from "../testing/suite-app";
import { AuthorizationServer } from "./authorization-server";
import { plantGrant } from "./testing/grants";
import { startOAuthApp } from "./testing/oauth-app";

const backends: Backend[] = ["postgres", "embedded"];

/**
 * An emergency rotation: the old key is retired at once and deleted while the api runs. A token
 * forged afterwards with the stolen key must stop verifying, and the key leave the JWKS, at the
 * next reload of the key set (every OAUTH_KEYS_RELOAD_SECONDS), without a restart. The test runs
 * that reload itself rather than waiting for the timer.
 */
describe.each(backends)("a retired signing key on a running api (%s)", (backend) => {
  const e2e = appForSuite(() => startOAuthApp(backend, oauthFixture()), 120_000);

  const jwksKids = async () =>
    ((await (await fetch(`${e2e.issuer}/jwks`)).json()) as { keys: { kid: string }[] }).keys.map((key) => key.kid);
  const status = async (token: string) =>
    (await fetch(`${e2e.origin}/v1/me/community/team/events`, { headers: { authorization: `Bearer ${token}` } }))
      .status;

  /** A brand-new access token signed with `jwk`, as someone holding the private key would mint it. */
  async function forge(jwk: JWK): Promise<string> {
    const jose = await loadJose();
    const now = Math.floor(Date.now() / 1000);
    return new jose.SignJWT({
      sub: RUNNER.username,
      client_id: PUBLIC_CLIENT.clientId,
      scope: "community:read",
      jti: randomUUID(),
      // A grant that exists: the key alone decides.
      grant_id: await plantGrant(e2e.database),
    })
      .setProtectedHeader({ alg: "ES256", typ: "at+jwt", kid: jwk.kid })
      .setIssuer(e2e.issuer)
      .setAudience(e2e.origin)
      .setIssuedAt(now)
      .setExpirationTime(now + 300)
      .sign(await jose.importJWK(jwk, "ES256"));
  }

  it("stops verifying and publishing it at the next reload of the key set", async () => {
    const [stolenRow] = await e2e.database.prisma.oAuthKey.findMany({ where: { kind: "signing" } });
    const stolen = stolenRow?.material as JWK;
    expect(await jwksKids()).toEqual([stolen.kid]);
    expect(await status(await forge(stolen))).toBe(200);

    const keys = e2e.app.get(OAuthKeysRepository);
    const rotation = await keys.rotate({ activateAfterSeconds: 0, overlapSeconds: 0 });
    expect(await keys.removeRetired()).toEqual([stolen.kid]);
    const beforeReload = await status(await forge(stolen));

    await e2e.app.get(BuiltInIssuerKeys).reload();
    await e2e.app.get(AuthorizationServer).reloadKeys();

    const afterReload = await status(await forge(stolen));
    const published = await jwksKids();
    reportFault(
      `key retirement (${backend})`,
      `token forged with a retired and deleted key: ${beforeReload} until the key set reloads (every OAUTH_KEYS_RELOAD_SECONDS, 30 s), then ${afterReload}; JWKS after: ${published.includes(String(stolen.kid)) ? "still publishes it" : "without it"}`,
    );
    expect(afterReload).toBe(401);
    expect(published).toEqual([rotation.added]);
  });
});
