import type { FixtureEvent, FixtureFile, FixtureGuide } from "@community/domain";

/**
 * The data of the end-to-end suites: two teams (so isolation can be tested), a user without a
 * team, and tokens in every state. Team "runners" has events with ties on scheduled_at and
 * guides with several drafts, so the tie-break on id is exercised across page boundaries.
 */
export const TOKENS = {
  runner: "tok-runner-valid",
  runnerSecondToken: "tok-runner-second",
  climber: "tok-climber-valid",
  noTeam: "tok-no-team",
  expired: "tok-runner-expired",
  revoked: "tok-runner-revoked",
  futureExpiry: "tok-runner-future",
} as const;

export const CLIENT_ID = "contract-client";

export const RUNNERS = "team_runners";
export const CLIMBERS = "team_climbers";
export const EMPTY_TEAM = "team_empty";

/** 23 runner events: scheduled_at falls on 8 distinct instants, so most share theirs with others. */
function runnerEvents(): FixtureEvent[] {
  const events: FixtureEvent[] = [];
  for (let i = 0; i < 23; i++) {
    const day = 1 + (i % 8);
    // ids are deliberately not in insertion order, to prove the order comes from the query
    const id = `ev_r_${String((i * 7) % 23).padStart(2, "0")}`;
    events.push({
      id,
      team_id: RUNNERS,
      account_id: i % 3 === 0 ? "acc_jane" : "acc_coach",
      slug: `run-${i}`,
      name: `Run ${i}`,
      description: i % 2 === 0 ? `Description of run ${i}` : null,
      cover_url: i % 4 === 0 ? `https://img.example.com/run-${i}.png` : null,
      duration_seconds: i * 600,
      scheduled_at: `2026-03-${String(day).padStart(2, "0")}T18:30:00Z`,
      live_at: i % 5 === 1 ? `2026-03-${String(day).padStart(2, "0")}T18:31:00Z` : null,
      completed_at: i % 5 === 1 ? `2026-03-${String(day).padStart(2, "0")}T19:30:00Z` : null,
      canceled_at: i % 5 === 2 ? `2026-02-20T10:00:00Z` : null,
      offer_replay_purchase: i % 2 === 1,
      price: [
        { value_in_cents: 1999, currency: "USD" },
        { value_in_cents: 1999, currency: "JPY" },
        { value_in_cents: 1999, currency: "BHD" },
        { value_in_cents: 0, currency: "EUR" },
      ][i % 4] as FixtureEvent["price"],
    });
  }
  return events;
}

function runnerGuides(): FixtureGuide[] {
  const published = [null, "2026-02-01T09:00:00Z", null, "2026-02-01T09:00:00Z", "2026-01-15T12:00:00Z", null];
  return Array.from({ length: 12 }, (_, i) => ({
    id: `gd_r_${String((i * 5) % 12).padStart(2, "0")}`,
    team_id: RUNNERS,
    account_id: i % 2 === 0 ? "acc_jane" : "acc_coach",
    slug: `guide-${i}`,
    name: `Guide ${i}`,
    description: i === 0 ? null : `About guide ${i}`,
    cover_url: i % 3 === 0 ? null : `https://img.example.com/guide-${i}.png`,
    published_at: published[i % published.length] ?? null,
    price: i % 2 === 0 ? { value_in_cents: 0, currency: "EUR" } : { value_in_cents: 450, currency: "GBP" },
  }));
}

export function contractFixture(): FixtureFile {
  return {
    accounts: [
      {
        id: "acc_jane",
        slug: "jane",
        name: "Jane",
        partner: true,
        profile_image_url: "https://img.example.com/jane.png",
        cover_image_url: null,
      },
      { id: "acc_coach", slug: "coach", name: "Coach", partner: false, profile_image_url: null, cover_image_url: null },
      {
        id: "acc_alp",
        slug: "alpinist",
        name: "Alpinist",
        partner: false,
        profile_image_url: null,
        cover_image_url: null,
      },
    ],
    teams: [
      { id: RUNNERS, name: "Runners" },
      { id: CLIMBERS, name: "Climbers" },
      { id: EMPTY_TEAM, name: "Empty" },
    ],
    users: [
      { id: "user_runner", name: "Sam", team_id: RUNNERS },
      { id: "user_climber", name: "Alex", team_id: CLIMBERS },
      { id: "user_empty", name: "Eve", team_id: EMPTY_TEAM },
      { id: "user_loner", name: "Lou", team_id: null },
    ],
    access_tokens: [
      { token: TOKENS.runner, user_id: "user_runner", client_id: CLIENT_ID, expires_at: null, revoked: false },
      {
        token: TOKENS.runnerSecondToken,
        user_id: "user_runner",
        client_id: CLIENT_ID,
        expires_at: null,
        revoked: false,
      },
      { token: TOKENS.climber, user_id: "user_climber", client_id: CLIENT_ID, expires_at: null, revoked: false },
      { token: TOKENS.noTeam, user_id: "user_loner", client_id: CLIENT_ID, expires_at: null, revoked: false },
      {
        token: TOKENS.expired,
        user_id: "user_runner",
        client_id: CLIENT_ID,
        expires_at: "2020-01-01T00:00:00Z",
        revoked: false,
      },
      { token: TOKENS.revoked, user_id: "user_runner", client_id: CLIENT_ID, expires_at: null, revoked: true },
      {
        token: TOKENS.futureExpiry,
        user_id: "user_runner",
        client_id: CLIENT_ID,
        expires_at: "2999-01-01T00:00:00Z",
        revoked: false,
      },
    ],
    events: [
      ...runnerEvents(),
      {
        id: "ev_c_1",
        team_id: CLIMBERS,
        account_id: "acc_alp",
        slug: "bouldering",
        name: "Bouldering night",
        description: null,
        cover_url: null,
        duration_seconds: 7200,
        scheduled_at: "2026-04-01T19:00:00Z",
        live_at: null,
        completed_at: null,
        canceled_at: null,
        offer_replay_purchase: false,
        price: { value_in_cents: 1500, currency: "CHF" },
      },
    ],
    guides: [
      ...runnerGuides(),
      {
        id: "gd_c_1",
        team_id: CLIMBERS,
        account_id: "acc_alp",
        slug: "knots",
        name: "Knots",
        description: "Eight knots",
        cover_url: null,
        published_at: "2026-01-01T00:00:00Z",
        price: { value_in_cents: 500, currency: "CHF" },
      },
    ],
  } satisfies FixtureFile;
}
