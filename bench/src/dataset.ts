import type { FixtureEvent, FixtureFile, FixtureGuide } from "@community/domain";

/** The bearer token of the large team's member: every benchmark request uses it. */
export const BENCH_TOKEN = "bench-token-large-team";
export const LARGE_TEAM = "team_large";
/** Other teams share as many rows again as the large team holds, so the tables hold twice its size. */
const OTHER_TEAMS = 4;
const ACCOUNTS = 200;
const CURRENCIES = ["USD", "EUR", "JPY", "BHD", "CHF"] as const;
const BASE_SECONDS = Date.UTC(2027, 0, 1) / 1000;

const iso = (seconds: number) => `${new Date(seconds * 1000).toISOString().slice(0, 19)}Z`;
const pad = (i: number) => String(i).padStart(8, "0");

/** Accounts, teams, users and the token: everything but the team items. */
export function baseFixture(): FixtureFile {
  const teams = [LARGE_TEAM, ...Array.from({ length: OTHER_TEAMS }, (_, t) => `team_other_${t}`)];
  return {
    accounts: Array.from({ length: ACCOUNTS }, (_, i) => ({
      id: `acc_${i}`,
      slug: `account-${i}`,
      name: `Account ${i}`,
      partner: i % 3 === 0,
      profile_image_url: i % 2 === 0 ? `https://img.example.com/p/${i}.png` : null,
      cover_image_url: null,
    })),
    teams: teams.map((id) => ({ id, name: `Team ${id}` })),
    users: teams.map((team) => ({ id: `user_${team}`, name: `Member of ${team}`, team_id: team })),
    access_tokens: [
      { token: BENCH_TOKEN, user_id: `user_${LARGE_TEAM}`, client_id: "bench", expires_at: null, revoked: false },
    ],
    events: [],
    guides: [],
  };
}

/** Which teams get how many items: the large team `n`, the others `n` between them. */
export function teamSizes(n: number): Array<{ teamId: string; count: number }> {
  const share = Math.ceil(n / OTHER_TEAMS);
  return [
    { teamId: LARGE_TEAM, count: n },
    ...Array.from({ length: OTHER_TEAMS }, (_, t) => ({ teamId: `team_other_${t}`, count: share })),
  ];
}

/**
 * `count` events and guides of one team. Three items share each timestamp (ties exercise the id
 * tie-break) and one guide in twenty is a draft, as real data would have.
 */
export function teamItems(teamId: string, count: number): Pick<FixtureFile, "events" | "guides"> {
  const events: FixtureEvent[] = new Array(count);
  const guides: FixtureGuide[] = new Array(count);
  /** What an event and a guide at index i have alike: ids, team, account, slug and name. */
  const owned = (i: number, prefix: string, kind: string, account: string) => ({
    id: `${prefix}_${teamId}_${pad(i)}`,
    team_id: teamId,
    account_id: account,
    slug: `${kind}-${i}`,
    name: `${kind[0]?.toUpperCase()}${kind.slice(1)} ${i}`,
  });
  for (let i = 0; i < count; i++) {
    const at = iso(BASE_SECONDS - Math.floor(i / 3) * 60);
    const account = `acc_${i % ACCOUNTS}`;
    const price = { value_in_cents: (i * 37) % 10_000, currency: CURRENCIES[i % CURRENCIES.length] as string };
    events[i] = {
      ...owned(i, "ev", "event", account),
      description: i % 2 === 0 ? `Description of event ${i}` : null,
      cover_url: i % 4 === 0 ? `https://img.example.com/e/${i}.jpg` : null,
      duration_seconds: 1800 + (i % 7) * 600,
      scheduled_at: at,
      live_at: i % 5 === 0 ? at : null,
      completed_at: null,
      canceled_at: i % 11 === 0 ? at : null,
      offer_replay_purchase: i % 2 === 1,
      price,
    };
    guides[i] = {
      ...owned(i, "gd", "guide", account),
      description: i % 3 === 0 ? null : `Description of guide ${i}`,
      cover_url: null,
      published_at: i % 20 === 0 ? null : at,
      price,
    };
  }
  return { events, guides };
}
