import { hashToken } from "@community/db";
import { type TestDatabase } from "@community/db/testing";
import { CLIMBERS, contractFixture, createLoadedTestDatabase, RUNNERS, TOKENS } from "@community/fixtures/testing";
import request from "supertest";
import { type Backend, type E2eApp, startE2eApp } from "../testing/e2e-app";
import { appForSuite } from "../testing/suite-app";

const EVENTS = "/v1/me/community/team/events";
const backends: Backend[] = ["postgres", "embedded"];

type Page = { status: number; ids: string[]; names: string[] };

async function page(e2e: E2eApp, token: string): Promise<Page> {
  // The events list carries its items under "guides" (the contract).
  const response = await request(e2e.server).get(`${EVENTS}?per_page=5`).set("Authorization", `Bearer ${token}`);
  const items = ((response.status === 200 ? response.body.guides : undefined) ?? []) as Array<{
    id: string;
    name: string;
  }>;
  return { status: response.status, ids: items.map((e) => e.id), names: items.map((e) => e.name) };
}

/** Twice: the second answer is a page-cache hit, the state every check below starts from. */
async function warm(e2e: E2eApp, token: string): Promise<Page> {
  await page(e2e, token);
  return page(e2e, token);
}

/**
 * The token check costs one statement per request (the token, its member and the team's list
 * versions, packages/db/src/lists/member-by-token.ts) and nothing about a token is kept between
 * requests but the digests that match no row (auth/unknown-token-cache.ts). So with the page
 * cache on and the page hot, each change below shows on the very next request.
 */
describe.each(backends)("a token check on %s", (backend) => {
  const e2e = appForSuite(() => startE2eApp(backend, contractFixture()), 120_000);

  const tokens = () => e2e.database.prisma.accessToken;

  it("refuses a revoked token on the very next request, its page hot in the cache", async () => {
    expect((await warm(e2e, TOKENS.runnerSecondToken)).status).toBe(200);
    const tokenHash = hashToken(TOKENS.runnerSecondToken);
    await tokens().update({ where: { tokenHash }, data: { revokedAt: new Date() } });
    expect((await page(e2e, TOKENS.runnerSecondToken)).status).toBe(401);
    await tokens().update({ where: { tokenHash }, data: { revokedAt: null } });
    expect((await page(e2e, TOKENS.runnerSecondToken)).status).toBe(200);
  });

  it("refuses an expired token on the very next request, its page hot in the cache", async () => {
    expect((await warm(e2e, TOKENS.runnerSecondToken)).status).toBe(200);
    const tokenHash = hashToken(TOKENS.runnerSecondToken);
    await tokens().update({ where: { tokenHash }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await page(e2e, TOKENS.runnerSecondToken)).status).toBe(401);
    await tokens().update({ where: { tokenHash }, data: { expiresAt: null } });
    expect((await page(e2e, TOKENS.runnerSecondToken)).status).toBe(200);
  });

  it("serves the new team's list on the very next request after the user changes team", async () => {
    const runners = await warm(e2e, TOKENS.runner);
    const climbers = await warm(e2e, TOKENS.climber);
    expect(runners.ids).not.toEqual(climbers.ids);
    await e2e.database.prisma.user.update({ where: { id: "user_runner" }, data: { teamId: CLIMBERS } });
    try {
      expect(await page(e2e, TOKENS.runner)).toEqual(climbers);
    } finally {
      await e2e.database.prisma.user.update({ where: { id: "user_runner" }, data: { teamId: RUNNERS } });
    }
    expect(await page(e2e, TOKENS.runner)).toEqual(runners);
  });

  it("shows a write on the very next request, the page hot in the cache", async () => {
    const before = await warm(e2e, TOKENS.runner);
    const first = before.ids[0] as string;
    await e2e.database.pool.query("UPDATE events SET name = $2 WHERE id = $1", [first, "Renamed on the primary"]);
    const after = await page(e2e, TOKENS.runner);
    expect(after.ids).toEqual(before.ids);
    expect(after.names[0]).toBe("Renamed on the primary");
  });
});

/**
 * With DATABASE_READ_URL, pages may come from a replica that lags; the token check must not. The
 * replica here is a copy that never catches up: a database of its own, loaded with the same
 * fixture, in which no token is ever revoked.
 */
describe("a token check with a lagging read replica", () => {
  let stale: TestDatabase;
  let e2e: E2eApp;

  beforeAll(async () => {
    stale = await createLoadedTestDatabase("stale_replica", contractFixture());
    e2e = await startE2eApp("postgres", contractFixture(), {
      readUrl: () => stale.url,
      env: { PAGE_CACHE_BYTES: "0" },
    });
  }, 120_000);

  afterAll(async () => {
    await e2e?.close();
    await stale?.drop();
  });

  it("reads pages from the replica", async () => {
    await e2e.database.pool.query("UPDATE events SET name = 'only on the primary'");
    const served = await page(e2e, TOKENS.runner);
    expect(served.status).toBe(200);
    expect(served.names).not.toContain("only on the primary");
  });

  it("refuses a token revoked on the primary on the very next request", async () => {
    expect((await page(e2e, TOKENS.runnerSecondToken)).status).toBe(200);
    await e2e.database.prisma.accessToken.update({
      where: { tokenHash: hashToken(TOKENS.runnerSecondToken) },
      data: { revokedAt: new Date() },
    });
    expect((await page(e2e, TOKENS.runnerSecondToken)).status).toBe(401);
  });

  it("refuses a token expired on the primary on the very next request", async () => {
    expect((await page(e2e, TOKENS.futureExpiry)).status).toBe(200);
    await e2e.database.prisma.accessToken.update({
      where: { tokenHash: hashToken(TOKENS.futureExpiry) },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    expect((await page(e2e, TOKENS.futureExpiry)).status).toBe(401);
  });
});
