import { hashToken } from "@community/db";
import { CLIENT_ID, contractFixture, TOKENS } from "@community/fixtures/testing";
import request from "supertest";
import { expectProblem } from "../testing/contract-assertions";
import { type Backend, startE2eApp } from "../testing/e2e-app";
import { appForSuite } from "../testing/suite-app";

const PATHS = ["/v1/me/community/team/events", "/v1/me/community/team/guides"];
const backends: Backend[] = ["postgres", "embedded"];

describe.each(backends)("bearer authentication on %s", (backend) => {
  const e2e = appForSuite(() => startE2eApp(backend, contractFixture()), 120_000);

  describe.each(PATHS)("%s", (path) => {
    it.each([
      ["no Authorization header", undefined],
      ["another scheme", "Basic dXNlcjpwYXNz"],
      ["the scheme alone", "Bearer"],
      ["the scheme and blanks", "Bearer    "],
    ])("answers %s with 401 and a challenge without an error code", async (_case, header) => {
      const call = request(e2e.server).get(path);
      const response = await (header === undefined ? call : call.set("Authorization", header));
      expectProblem(response, 401, "unauthorized");
      expect(response.headers["www-authenticate"]).toBe('Bearer realm="api"');
    });

    it.each([
      ["an unknown token", `Bearer not-a-known-token`],
      ["an expired token", `Bearer ${TOKENS.expired}`],
      ["a revoked token", `Bearer ${TOKENS.revoked}`],
      ["a bare client_id", `Bearer ${CLIENT_ID}`],
      ["the token's SHA-256 digest instead of the token", `Bearer ${hashToken(TOKENS.runner)}`],
      ["a malformed token", `Bearer ${TOKENS.runner} extra`],
      ["a token with a trailing comma", `Bearer ${TOKENS.runner},`],
    ])("answers %s with 401 error=invalid_token", async (_case, header) => {
      const response = await request(e2e.server).get(path).set("Authorization", header);
      expectProblem(response, 401, "unauthorized");
      expect(response.headers["www-authenticate"]).toMatch(/^Bearer realm="api", error="invalid_token"/);
    });

    it("gives the same body for unknown, expired and revoked tokens", async () => {
      const bodies = await Promise.all(
        ["unknown-token", TOKENS.expired, TOKENS.revoked].map(async (token) => {
          const response = await request(e2e.server).get(path).set("Authorization", `Bearer ${token}`);
          const { instance: _instance, ...rest } = response.body;
          return rest;
        }),
      );
      expect(bodies[1]).toEqual(bodies[0]);
      expect(bodies[2]).toEqual(bodies[0]);
    });

    it.each(["Bearer", "bearer", "BEARER", "bEaReR"])("accepts the scheme written %s", async (scheme) => {
      const response = await request(e2e.server).get(path).set("Authorization", `${scheme} ${TOKENS.runner}`);
      expect(response.status).toBe(200);
    });

    it("accepts a token whose expiry lies in the future", async () => {
      const response = await request(e2e.server).get(path).set("Authorization", `Bearer ${TOKENS.futureExpiry}`);
      expect(response.status).toBe(200);
    });

    it("does not take the token from the query string", async () => {
      const response = await request(e2e.server).get(`${path}?access_token=${TOKENS.runner}`);
      expectProblem(response, 401, "unauthorized");
    });
  });

  it("revocation and expiry take effect on the next request", async () => {
    const path = PATHS[0] as string;
    const header = { Authorization: `Bearer ${TOKENS.runnerSecondToken}` };
    expect((await request(e2e.server).get(path).set(header)).status).toBe(200);

    const tokenHash = hashToken(TOKENS.runnerSecondToken);
    await e2e.database.prisma.accessToken.update({ where: { tokenHash }, data: { revokedAt: new Date() } });
    expect((await request(e2e.server).get(path).set(header)).status).toBe(401);

    await e2e.database.prisma.accessToken.update({
      where: { tokenHash },
      data: { revokedAt: null, expiresAt: new Date(Date.now() - 1000) },
    });
    expect((await request(e2e.server).get(path).set(header)).status).toBe(401);

    await e2e.database.prisma.accessToken.update({ where: { tokenHash }, data: { expiresAt: null } });
    expect((await request(e2e.server).get(path).set(header)).status).toBe(200);
  });
});
