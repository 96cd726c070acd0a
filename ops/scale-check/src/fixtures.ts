/**
 * The check's own data, written as fixture files and loaded with the seed CLI (the same loader
 * as production data): one team, tokens for the load and for the rate-limit budget, a password and
 * a public OAuth client for a sign-in at the built-in authorization server, and single
 * events for the replication probes. Shaped as in docs/api.md, section 8.
 */

const ACCOUNT_ID = "scale_account";
const TEAM_ID = "scale_team";
const USER_ID = "scale_user";

const empty = { accounts: [], teams: [], users: [], access_tokens: [], events: [], guides: [] };

function event(id: string, index: number, scheduledAt = new Date(Date.UTC(2026, 0, 1 + (index % 300), 9))) {
  return {
    id,
    team_id: TEAM_ID,
    account_id: ACCOUNT_ID,
    slug: id.replace(/_/g, "-"),
    name: `Scale check event ${index}`,
    description: null,
    cover_url: null,
    duration_seconds: 3600,
    scheduled_at: scheduledAt.toISOString().replace(/\.000Z$/, "Z"),
    live_at: null,
    completed_at: null,
    canceled_at: null,
    offer_replay_purchase: false,
    price: { value_in_cents: 1500, currency: "EUR" },
  };
}

/** The user's sign-in at the built-in authorization server, and the public client it signs in to. */
export const SCALE_CREDENTIALS = { username: USER_ID, password: "scale-check-password" } as const;
export const SCALE_CLIENT = {
  clientId: "scale-check-spa",
  redirectUri: "http://client.scale-check.test/callback",
} as const;

const token = (value: string, revoked = false) => ({
  token: value,
  user_id: USER_ID,
  client_id: "scale-check",
  expires_at: null,
  revoked,
});

/** The revocation of one of the team's tokens, as an operator loads it (seed CLI, --file). */
export function revokedTokenFixture(value: string) {
  return { ...empty, access_tokens: [token(value, true)] };
}

export function teamFixture(loadTokens: string[], budgetToken: string) {
  return {
    ...empty,
    accounts: [
      {
        id: ACCOUNT_ID,
        slug: "scale-check-host",
        name: "Scale Check Host",
        partner: false,
        profile_image_url: null,
        cover_image_url: null,
      },
    ],
    teams: [{ id: TEAM_ID, name: "Scale Check" }],
    users: [{ id: USER_ID, name: "Scale Check User", team_id: TEAM_ID, password: SCALE_CREDENTIALS.password }],
    oauth_clients: [
      {
        client_id: SCALE_CLIENT.clientId,
        name: "Scale check",
        client_secret: null,
        redirect_uris: [SCALE_CLIENT.redirectUri],
      },
    ],
    access_tokens: [...loadTokens, budgetToken].map((value) => token(value)),
    events: Array.from({ length: 12 }, (_, i) => event(`scale_event_${i + 1}`, i)),
    guides: Array.from({ length: 6 }, (_, i) => ({
      id: `scale_guide_${i + 1}`,
      team_id: TEAM_ID,
      account_id: ACCOUNT_ID,
      slug: `scale-guide-${i + 1}`,
      name: `Scale check guide ${i + 1}`,
      description: null,
      cover_url: null,
      published_at: "2026-02-01T12:00:00Z",
      price: { value_in_cents: 0, currency: "USD" },
    })),
  };
}

/**
 * One new event: the write whose arrival on the replica, and in the api's list, is timed. Each
 * probe is scheduled after every other event, so it heads the team's events list.
 */
export function probeFixture(id: string, index: number) {
  return { ...empty, events: [event(id, index, new Date(Date.UTC(2030, 0, 1, 0, index)))] };
}
