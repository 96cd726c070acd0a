import type { FixtureGuide, Guide } from "@community/domain";
import { CLIMBERS, RUNNERS, TOKENS } from "@community/fixtures/testing";
import { expectTimestamp, GUIDE_KEYS } from "../testing/contract-assertions";
import { teamListSuite } from "../testing/team-list-suite";

/** The contract's order: drafts (null) first, then published_at desc, then id asc. */
function contractOrder(guides: FixtureGuide[]): string[] {
  const rank = (g: FixtureGuide) => (g.published_at === null ? "9999" : g.published_at);
  return [...guides]
    .sort((a, b) => (rank(a) === rank(b) ? (a.id < b.id ? -1 : 1) : rank(a) < rank(b) ? 1 : -1))
    .map((g) => g.id);
}

describe("GET /v1/me/community/team/guides", () => {
  const suite = teamListSuite("/v1/me/community/team/guides");
  const { fixture, get } = suite;

  it("lists drafts first, then newest published, ties broken by id", async () => {
    const runnerGuides = fixture.guides.filter((g) => g.team_id === RUNNERS);
    const ids = ((await get(TOKENS.runner)).body.guides as Guide[]).map((g) => g.id);
    expect(ids).toEqual(contractOrder(runnerGuides));
    const drafts = runnerGuides.filter((g) => g.published_at === null).length;
    expect(drafts).toBeGreaterThan(1);
    expect(ids.slice(0, drafts).every((id) => runnerGuides.find((g) => g.id === id)?.published_at === null)).toBe(true);
  });

  it("keeps that order across page boundaries", async () => {
    const ids = await suite.idsOverPages(TOKENS.runner, 2, 6);
    expect(ids).toEqual(contractOrder(fixture.guides.filter((g) => g.team_id === RUNNERS)));
  });

  it("serves every field of every guide as the fixture says, drafts included", async () => {
    const guides = (await get(TOKENS.runner)).body.guides as Guide[];
    expect(guides.some((g) => g.published_at === null)).toBe(true);
    for (const guide of guides) {
      suite.expectServedAsFixture(guide, fixture.guides, GUIDE_KEYS);
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
