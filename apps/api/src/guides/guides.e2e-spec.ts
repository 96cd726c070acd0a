import { type FixtureGuide, type Guide, priceFromMinorUnits } from "@community/domain";
import { CLIMBERS, contractFixture, RUNNERS, TOKENS } from "@community/fixtures/testing";
import request from "supertest";
import { ACCOUNT_KEYS, expectTimestamp, GUIDE_KEYS, PRICE_KEYS } from "../testing/contract-assertions";
import { type E2eApp, startE2eApp } from "../testing/e2e-app";

const PATH = "/v1/me/community/team/guides";
const fixture = contractFixture();

/** The contract's order: drafts (null) first, then published_at desc, then id asc. */
function contractOrder(guides: FixtureGuide[]): string[] {
  const rank = (g: FixtureGuide) => (g.published_at === null ? "9999" : g.published_at);
  return [...guides]
    .sort((a, b) => (rank(a) === rank(b) ? (a.id < b.id ? -1 : 1) : rank(a) < rank(b) ? 1 : -1))
    .map((g) => g.id);
}

describe("GET /v1/me/community/team/guides", () => {
  let e2e: E2eApp;
  const get = (token: string, query = "") =>
    request(e2e.server).get(`${PATH}${query}`).set("Authorization", `Bearer ${token}`);

  beforeAll(async () => {
    e2e = await startE2eApp("postgres", fixture);
  });

  afterAll(async () => {
    await e2e?.close();
  });

  it("lists drafts first, then newest published, ties broken by id", async () => {
    const runnerGuides = fixture.guides.filter((g) => g.team_id === RUNNERS);
    const ids = ((await get(TOKENS.runner)).body.guides as Guide[]).map((g) => g.id);
    expect(ids).toEqual(contractOrder(runnerGuides));
    const drafts = runnerGuides.filter((g) => g.published_at === null).length;
    expect(drafts).toBeGreaterThan(1);
    expect(ids.slice(0, drafts).every((id) => runnerGuides.find((g) => g.id === id)?.published_at === null)).toBe(true);
  });

  it("keeps that order across page boundaries", async () => {
    const ids: string[] = [];
    for (let page = 1; page <= 6; page++) {
      ids.push(...(await get(TOKENS.runner, `?per_page=2&page=${page}`)).body.guides.map((g: Guide) => g.id));
    }
    expect(ids).toEqual(contractOrder(fixture.guides.filter((g) => g.team_id === RUNNERS)));
  });

  it("serves every field of every guide as the fixture says, drafts included", async () => {
    const accounts = new Map(fixture.accounts.map((a) => [a.id, a]));
    const guides = (await get(TOKENS.runner)).body.guides as Guide[];
    expect(guides.some((g) => g.published_at === null)).toBe(true);
    for (const guide of guides) {
      expect(Object.keys(guide).sort()).toEqual(GUIDE_KEYS);
      expect(Object.keys(guide.price).sort()).toEqual(PRICE_KEYS);
      expect(Object.keys(guide.account).sort()).toEqual(ACCOUNT_KEYS);
      const source = fixture.guides.find((g) => g.id === guide.id);
      if (source === undefined) throw new Error(`unexpected guide ${guide.id}`);
      const { team_id: _team, account_id, price, ...fields } = source;
      expect(guide).toEqual({
        ...fields,
        price: priceFromMinorUnits(price.value_in_cents, price.currency),
        account: accounts.get(account_id),
      });
      expectTimestamp(guide.published_at, true);
    }
  });

  it("never shows another team's guides", async () => {
    const climber = (await get(TOKENS.climber)).body.guides as Guide[];
    expect(climber.map((g) => g.id)).toEqual(fixture.guides.filter((g) => g.team_id === CLIMBERS).map((g) => g.id));
    const runner = (await get(TOKENS.runner)).body.guides as Guide[];
    expect(runner.some((g) => g.id.startsWith("gd_c_"))).toBe(false);
  });
});
