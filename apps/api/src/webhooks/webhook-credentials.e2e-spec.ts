import { randomUUID } from "node:crypto";
import { hashToken } from "@community/db";
import request from "supertest";
import { type JWK, loadJose } from "../auth/jose";
import { plantGrant } from "../oauth/testing/grants";
import { expectProblem } from "../testing/contract-assertions";
import { type E2eApp, listenOnLoopback, startE2eApp } from "../testing/e2e-app";
import { oauthFixture } from "../testing/oauth-fixture";
import { receiverForSuite } from "./testing/receiver";
import { WebhookDeliveryWorker } from "./webhook-delivery.worker";

const WEBHOOKS = "/v1/me/community/team/webhooks";
const ORIGIN = "https://api.example.test";
const ISSUER = `${ORIGIN}/oauth`;

/**
 * The webhooks with JWT access tokens of the built-in issuer: the scope community:webhooks is
 * required (403 insufficient_scope without it, the read scope alone is not enough), and a
 * subscription rests on the grant of the token that made it: the grant revoked, it is revoked.
 */
describe("webhooks and the built-in issuer's tokens", () => {
  const receiver = receiverForSuite();
  let e2e: E2eApp;
  let base: string;
  let jose: Awaited<ReturnType<typeof loadJose>>;
  let signingJwk: JWK;

  beforeAll(async () => {
    jose = await loadJose();
    e2e = await startE2eApp("postgres", oauthFixture(), {
      env: { PUBLIC_URL: ORIGIN, WEBHOOK_ALLOWED_HOSTS: "127.0.0.1", RATE_LIMIT_MAX: "0" },
    });
    const row = await e2e.database.prisma.oAuthKey.findFirstOrThrow({ where: { kind: "signing" } });
    signingJwk = row.material as JWK;
    base = (await listenOnLoopback(e2e)).url;
  }, 120_000);

  afterAll(async () => {
    await e2e?.close();
  });

  async function token(scope: string, grantId: string): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const key = await jose.importJWK(signingJwk, "ES256");
    return new jose.SignJWT({
      iss: ISSUER,
      aud: ORIGIN,
      sub: "user_runner",
      client_id: "test-spa",
      scope,
      iat: now,
      exp: now + 600,
      jti: randomUUID(),
      grant_id: grantId,
    })
      .setProtectedHeader({ alg: "ES256", typ: "at+jwt", kid: signingJwk.kid })
      .sign(key);
  }

  it("refuses a token without community:webhooks (403 insufficient_scope naming it)", async () => {
    const readOnly = await token("community:read", await plantGrant(e2e.database));
    for (const call of [
      request(base).get(WEBHOOKS),
      request(base)
        .post(WEBHOOKS)
        .send({ url: receiver.url(), lists: ["events"] }),
    ]) {
      const response = await call.set("Authorization", `Bearer ${readOnly}`);
      expectProblem(response, 403, "insufficient-scope");
      expect(response.headers["www-authenticate"]).toContain('scope="community:webhooks"');
    }
    expect(receiver.received).toEqual([]);
    // The lists still take it.
    const events = await request(base).get("/v1/me/community/team/events").set("Authorization", `Bearer ${readOnly}`);
    expect(events.status).toBe(200);
  });

  it("revokes a subscription whose grant is revoked", async () => {
    const grantId = await plantGrant(e2e.database);
    const bearer = `Bearer ${await token("community:read community:webhooks", grantId)}`;
    const created = await request(base)
      .post(WEBHOOKS)
      .set("Authorization", bearer)
      .send({ url: receiver.url(), lists: ["events"] });
    expect(created.status).toBe(201);
    await e2e.database.pool.query("DELETE FROM oauth_payloads WHERE model = 'Grant' AND id = $1", [hashToken(grantId)]);
    await e2e.app.get(WebhookDeliveryWorker).sweep();
    const row = await e2e.database.pool.query<{ status: string; status_reason: string }>(
      "SELECT status, status_reason FROM webhook_subscriptions WHERE id = $1",
      [created.body.id],
    );
    expect(row.rows[0]).toEqual({ status: "revoked", status_reason: "the grant was revoked or the client deleted" });
  });
});
