import type { FixtureEvent, FixtureFile } from "@community/domain";
import { CLIENT_ID, contractFixture } from "../testing/contract-fixture";

export const LARGE_TEAM_TOKEN = "tok-large-team";
export const LARGE_TEAM_EVENTS = 1_234;

/**
 * The contract fixture plus a team with more events than ten full pages. scheduled_at takes 97
 * values, so most events share theirs and the id tie-break decides much of the order; ids are
 * not created in order.
 */
export function largeTeamFixture(): FixtureFile {
  const fixture = contractFixture();
  const team = "team_large";
  const events: FixtureEvent[] = Array.from({ length: LARGE_TEAM_EVENTS }, (_, i) => {
    const minutes = (i * 37) % 97;
    return {
      id: `ev_l_${String((i * 611) % LARGE_TEAM_EVENTS).padStart(4, "0")}`,
      team_id: team,
      account_id: "acc_jane",
      slug: `large-${i}`,
      name: `Large ${i}`,
      description: null,
      cover_url: null,
      duration_seconds: 1800,
      scheduled_at: new Date(Date.UTC(2026, 4, 1) + minutes * 3_600_000).toISOString().replace(".000Z", "Z"),
      live_at: null,
      completed_at: null,
      canceled_at: null,
      offer_replay_purchase: false,
      price: { value_in_cents: 100 * (i % 5), currency: "USD" },
    };
  });
  return {
    ...fixture,
    teams: [...fixture.teams, { id: team, name: "Large team" }],
    users: [...fixture.users, { id: "user_large", name: "Lee", team_id: team }],
    access_tokens: [
      ...fixture.access_tokens,
      { token: LARGE_TEAM_TOKEN, user_id: "user_large", client_id: CLIENT_ID, expires_at: null, revoked: false },
    ],
    events: [...fixture.events, ...events],
  };
}

/** The contract's event order, computed apart from the SQL: scheduled_at descending, then id ascending. */
export function contractEventOrder(events: FixtureEvent[]): string[] {
  return [...events]
    .sort((a, b) =>
      a.scheduled_at === b.scheduled_at ? (a.id < b.id ? -1 : 1) : a.scheduled_at < b.scheduled_at ? 1 : -1,
    )
    .map((e) => e.id);
}
