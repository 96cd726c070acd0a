import { randomUUID } from "node:crypto";
import request from "supertest";
import { plantGrant } from "../oauth/testing/grants";
import { expectProblem } from "../testing/contract-assertions";
import { type E2eApp, startE2eApp } from "../testing/e2e-app";
import { oauthFixture } from "../testing/oauth-fixture";
import { type JWK, loadJose } from "./jose";

const EVENTS = "/v1/me/community/team/events";
const ORIGIN = "https://api.example.test";
const ISSUER = `${ORIGIN}/oauth`;

/**
 * The RFC 9068 checks on access tokens of the built-in issuer. Tokens are signed here with the
 * server's own key from the database, so each case changes exactly one thing of a valid token.
 */
describe("JWT access tokens of the built-in issuer", () => {
  let e2e: E2eApp;
  let jose: Awaited<ReturnType<typeof loadJose>>;
  let signingJwk: JWK;
  let grantId: string;

  beforeAll(async () => {
    jose = await loadJose();
    e2e = await startE2eApp("postgres", oauthFixture(), { env: { PUBLIC_URL: ORIGIN } });
    const row = await e2e.database.prisma.oAuthKey.findFirstOrThrow({ where: { kind: "signing" } });
    signingJwk = row.material as JWK;
    grantId = await plantGrant(e2e.database);
  }, 120_000);

  afterAll(async () => {
    await e2e?.close();
  });

  const now = () => Math.floor(Date.now() / 1000);

  function claims(overrides: Record<string, unknown> = {}) {
    return {
      iss: ISSUER,
      aud: ORIGIN,
      sub: "user_runner",
      client_id: "test-spa",
      scope: "community:read",
      iat: now(),
      exp: now() + 600,
      jti: randomUUID(),
      grant_id: grantId,
      ...overrides,
    };
  }

  async function sign(
    payload: Record<string, unknown>,
    header: Record<string, unknown> = {},
    jwk: JWK = signingJwk,
  ): Promise<string> {
    const key = await jose.importJWK(jwk, "ES256");
    const clean = Object.fromEntries(Object.entries(payload).filter(([, v]) => v !== undefined));
    return new jose.SignJWT(clean)
      .setProtectedHeader({ alg: "ES256", typ: "at+jwt", kid: jwk.kid, ...header })
      .sign(key);
  }

  const call = (token: string) => request(e2e.server).get(EVENTS).set("Authorization", `Bearer ${token}`);

  async function expectInvalid(token: string) {
    const response = await call(token);
    expectProblem(response, 401, "unauthorized");
    expect(response.headers["www-authenticate"]).toMatch(/^Bearer realm="api", error="invalid_token"/);
    const { instance: _instance, ...body } = response.body;
    const unknown = await call("an-unknown-opaque-token");
    const { instance: _other, ...unknownBody } = unknown.body;
    // Never says why: the same body as for an unknown token.
    expect(body).toEqual(unknownBody);
  }

  it("accepts a valid token and lists the team of its sub", async () => {
    const response = await call(await sign(claims()));
    expect(response.status).toBe(200);
    expect(response.headers["x-total-count"]).toBe("23");
  });

  it("tolerates a token that expired within the clock skew, not beyond it", async () => {
    expect((await call(await sign(claims({ exp: now() - 10 })))).status).toBe(200);
    await expectInvalid(await sign(claims({ exp: now() - 60 })));
  });

  it.each([
    ["expired", { exp: now() - 3600 }],
    ["not yet valid (nbf)", { nbf: now() + 120 }],
    ["for another audience", { aud: "https://other-api.example.test" }],
    ["from another issuer", { iss: "https://idp.example.test" }],
    ["from the issuer with a trailing slash", { iss: `${ISSUER}/` }],
    ["for a user that does not exist", { sub: "user_nobody" }],
    ["without exp", { exp: undefined }],
    ["without sub", { sub: undefined }],
    ["without client_id", { client_id: undefined }],
  ])("refuses a token %s", async (_case, overrides) => {
    await expectInvalid(await sign(claims(overrides)));
  });

  it("refuses typ JWT: an access token must say at+jwt", async () => {
    await expectInvalid(await sign(claims(), { typ: "JWT" }));
    await expectInvalid(await sign(claims(), { typ: undefined }));
  });

  it("refuses a tampered token", async () => {
    const [header, , signature] = (await sign(claims())).split(".");
    const payload = Buffer.from(JSON.stringify(claims({ sub: "user_climber" }))).toString("base64url");
    await expectInvalid(`${header}.${payload}.${signature}`);
  });

  it("refuses alg none", async () => {
    const header = Buffer.from(JSON.stringify({ alg: "none", typ: "at+jwt" })).toString("base64url");
    const payload = Buffer.from(JSON.stringify(claims())).toString("base64url");
    await expectInvalid(`${header}.${payload}.`);
    await expectInvalid(`${header}.${payload}.c2ln`);
  });

  it("refuses HS256 keyed with the issuer's public key", async () => {
    const publicJwk = JSON.stringify({ kty: signingJwk.kty, crv: signingJwk.crv, x: signingJwk.x, y: signingJwk.y });
    const token = await new jose.SignJWT(claims())
      .setProtectedHeader({ alg: "HS256", typ: "at+jwt", kid: signingJwk.kid })
      .sign(new TextEncoder().encode(publicJwk));
    await expectInvalid(token);
  });

  it("refuses a token signed by a key the issuer does not have (unknown kid)", async () => {
    const { privateKey } = await jose.generateKeyPair("ES256", { extractable: true });
    const stranger = { ...(await jose.exportJWK(privateKey)), kid: "not-a-known-kid" };
    await expectInvalid(await sign(claims(), {}, stranger));
    // The same foreign key under the issuer's real kid fails on the signature.
    await expectInvalid(await sign(claims(), {}, { ...stranger, kid: signingJwk.kid }));
  });

  it("refuses a token without its grant (grant_id), or of a grant that does not exist", async () => {
    await expectInvalid(await sign(claims({ grant_id: undefined })));
    await expectInvalid(await sign(claims({ grant_id: 42 })));
    await expectInvalid(await sign(claims({ grant_id: randomUUID() })));
  });

  it("refuses a token of a grant that expired", async () => {
    const expiring = await plantGrant(e2e.database);
    expect((await call(await sign(claims({ grant_id: expiring })))).status).toBe(200);
    await e2e.database.prisma.oAuthPayload.updateMany({
      where: { model: "Grant", grantId: expiring },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    await expectInvalid(await sign(claims({ grant_id: expiring })));
  });

  it("answers a valid token without community:read with 403 insufficient_scope naming the scope", async () => {
    for (const scope of ["openid profile", "", "community:readx"]) {
      const response = await call(await sign(claims({ scope })));
      expectProblem(response, 403, "insufficient-scope");
      expect(response.headers["www-authenticate"]).toBe(
        'Bearer realm="api", error="insufficient_scope", scope="community:read"',
      );
    }
    const guides = await request(e2e.server)
      .get("/v1/me/community/team/guides")
      .set("Authorization", `Bearer ${await sign(claims({ scope: "openid" }))}`);
    expectProblem(guides, 403, "insufficient-scope");
  });

  it("keeps opaque tokens unscoped, as before", async () => {
    expect((await call("tok-runner-valid")).status).toBe(200);
  });
});
