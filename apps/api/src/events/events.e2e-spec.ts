import type { Event, FixtureEvent } from "@community/domain";
import { loadFixture } from "@community/fixtures";
import { CLIMBERS, RUNNERS, TOKENS } from "@community/fixtures/testing";
import { EVENT_KEYS, expectTimestamp } from "../testing/contract-assertions";
import { teamListSuite } from "../testing/team-list-suite";

/** The contract's order, computed independently of the SQL: scheduled_at desc, then id asc. */
function contractOrder(events: FixtureEvent[]): string[] {
  return [...events]
    .sort((a, b) =>
      a.scheduled_at === b.scheduled_at ? (a.id < b.id ? -1 : 1) : a.scheduled_at < b.scheduled_at ? 1 : -1,
    )
    .map((e) => e.id);
}

describe("GET /v1/me/community/team/events", () => {
  const suite = teamListSuite("/v1/me/community/team/events");
  const { fixture, get } = suite;

  it("lists the caller's team events in the contract's order, ties broken by id", async () => {
    const runnerEvents = fixture.events.filter((e) => e.team_id === RUNNERS);
    const response = await get(TOKENS.runner);
    expect(response.body.guides.map((e: Event) => e.id)).toEqual(contractOrder(runnerEvents));
    // the fixture really has ties, or this test would prove nothing about the tie-break
    expect(new Set(runnerEvents.map((e) => e.scheduled_at)).size).toBeLessThan(runnerEvents.length);
  });

  it("keeps that order across page boundaries", async () => {
    const ids = await suite.idsOverPages(TOKENS.runner, 3, 8);
    expect(ids).toEqual(contractOrder(fixture.events.filter((e) => e.team_id === RUNNERS)));
  });

  it("serves every field of every event as the fixture says", async () => {
    const response = await get(TOKENS.runner);
    for (const event of response.body.guides as Event[]) {
      suite.expectServedAsFixture(event, fixture.events, EVENT_KEYS);
      expectTimestamp(event.scheduled_at, false);
      for (const field of ["live_at", "completed_at", "canceled_at"] as const) expectTimestamp(event[field], true);
    }
  });

  it("writes prices in the currency's minor unit: USD 19.99, JPY 1999, BHD 1.999, free 0", async () => {
    const prices = new Map(
      ((await get(TOKENS.runner)).body.guides as Event[]).map((e) => [e.price.currency, e.price.value]),
    );
    expect(prices.get("USD")).toBe(19.99);
    expect(prices.get("JPY")).toBe(1999);
    expect(prices.get("BHD")).toBe(1.999);
    expect(prices.get("EUR")).toBe(0);
  });

  it("never shows another team's events", async () => {
    const climber = (await get(TOKENS.climber)).body.guides as Event[];
    expect(climber.map((e) => e.id)).toEqual(fixture.events.filter((e) => e.team_id === CLIMBERS).map((e) => e.id));
    const runner = (await get(TOKENS.runner, "?team_id=team_climbers&team=team_climbers")).body.guides as Event[];
    expect(runner.some((e) => e.id.startsWith("ev_c_"))).toBe(false);
  });

  it("shows writes through the seed loader on the next request, with a new ETag", async () => {
    const before = await get(TOKENS.climber);
    await loadFixture(suite.app().database.prisma, {
      accounts: [],
      teams: [],
      users: [],
      access_tokens: [],
      guides: [],
      events: [
        {
          id: "ev_c_2",
          team_id: CLIMBERS,
          account_id: "acc_alp",
          slug: "ice-climbing",
          name: "Ice climbing",
          description: null,
          cover_url: null,
          duration_seconds: 0,
          scheduled_at: "2027-01-10T08:00:00Z",
          live_at: null,
          completed_at: null,
          canceled_at: null,
          offer_replay_purchase: true,
          price: { value_in_cents: 1000, currency: "CHF" },
        },
      ],
    });
    const after = await get(TOKENS.climber);
    expect(after.body.guides.map((e: Event) => e.id)).toEqual(["ev_c_2", "ev_c_1"]);
    expect(after.headers["x-total-count"]).toBe("2");
    expect(after.headers.etag).not.toBe(before.headers.etag);
    const revalidated = await get(TOKENS.climber).set("If-None-Match", before.headers.etag as string);
    expect(revalidated.status).toBe(200);
  });
});
