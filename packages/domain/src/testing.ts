import type { Event } from "./entities";
import type { FixtureEvent, FixtureFile, FixtureGuide } from "./fixture";

/** Test data shared by the tests of several packages: the fixture format and the wire format. */

/** The schedule of the contract's example event, the same in the fixture and on the wire. */
const EXAMPLE_SCHEDULE = {
  duration_seconds: 3600,
  scheduled_at: "2026-03-01T18:30:00Z",
  live_at: null,
  completed_at: null,
  canceled_at: null,
  offer_replay_purchase: false,
} as const;

/** A scheduled event of team_1 by acc_1 at USD 19.99; `overrides` set any field. */
export function fixtureEvent(id: string, overrides: Partial<FixtureEvent> = {}): FixtureEvent {
  return {
    id,
    team_id: "team_1",
    account_id: "acc_1",
    slug: id.replace(/_/g, "-"),
    name: `Event ${id}`,
    description: null,
    cover_url: null,
    ...EXAMPLE_SCHEDULE,
    price: { value_in_cents: 1999, currency: "USD" },
    ...overrides,
  };
}

/** The contract's example guide (section 8) under `id`: published, free; `overrides` set any field. */
export function fixtureGuide(id: string, overrides: Partial<FixtureGuide> = {}): FixtureGuide {
  return {
    id,
    team_id: "team_1",
    account_id: "acc_1",
    slug: "first-5k",
    name: "Your first 5k",
    description: "…",
    cover_url: null,
    published_at: "2026-02-01T09:00:00Z",
    price: { value_in_cents: 0, currency: "EUR" },
    ...overrides,
  };
}

/** The example of the contract, section 8. */
export function contractExampleFixture(): FixtureFile {
  return {
    accounts: [
      { id: "acc_1", slug: "jane", name: "Jane", partner: true, profile_image_url: null, cover_image_url: null },
    ],
    teams: [{ id: "team_1", name: "Runners" }],
    users: [{ id: "user_1", name: "Sam", team_id: "team_1" }],
    access_tokens: [
      { token: "plaintext-secret", user_id: "user_1", client_id: "demo-client", expires_at: null, revoked: false },
    ],
    events: [fixtureEvent("ev_1", { slug: "spring-run", name: "Spring run" })],
    guides: [fixtureGuide("gd_1")],
  };
}

/** The wire form of the contract's example event (USD 19.99, by Jane); `overrides` set any field. */
export function wireEvent(overrides: Partial<Event> = {}): Event {
  return {
    id: "ev_1",
    slug: "spring-run",
    ...EXAMPLE_SCHEDULE,
    name: "Spring run",
    description: null,
    cover_url: null,
    price: { value: 19.99, value_in_cents: 1999, currency: "USD" },
    account: { id: "acc_1", slug: "jane", name: "Jane", partner: true, profile_image_url: null, cover_image_url: null },
    ...overrides,
  };
}
