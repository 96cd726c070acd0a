import {
  type CurrencyCode,
  type FixtureAccessToken,
  type FixtureAccount,
  type FixtureEvent,
  type FixtureFile,
  type FixtureGuide,
  type FixtureUser,
  formatTimestamp,
} from "@community/domain";

/**
 * Built-in demo data: three teams with events and guides in several currencies and states, and
 * access tokens with well-known values so that anyone can call the api right after seeding.
 * Everything is computed from fixed dates and indices, so every call returns the same data.
 */

export const DEMO_CLIENT_ID = "demo-client";

export interface DemoToken {
  /** The bearer token to send: `Authorization: Bearer <token>`. */
  token: string;
  userId: string;
  /** What a request with this token demonstrates. */
  purpose: string;
}

/** The demo's access tokens. They are public knowledge: never load the demo into production. */
export const DEMO_TOKENS = {
  runners: {
    token: "demo-token-runners",
    userId: "user_sam",
    purpose: "Sam, member of Riverside Runners (40 events, 24 guides: more than one page at per_page=20)",
  },
  climbers: {
    token: "demo-token-climbers",
    userId: "user_alex",
    purpose: "Alex, member of Granite Climbers (16 events, 10 guides); expires 2099-12-31",
  },
  swimmers: {
    token: "demo-token-swimmers",
    userId: "user_kim",
    purpose: "Kim, member of Harbour Swimmers (6 events, 4 guides)",
  },
  noTeam: {
    token: "demo-token-no-team",
    userId: "user_noor",
    purpose: "Noor, who belongs to no team: 404 no-community-team",
  },
  expired: {
    token: "demo-token-expired",
    userId: "user_sam",
    purpose: "Sam's token that expired on 2025-01-01: 401",
  },
  revoked: {
    token: "demo-token-revoked",
    userId: "user_sam",
    purpose: "Sam's revoked token: 401",
  },
} as const satisfies Record<string, DemoToken>;

/**
 * Demo logins for the built-in authorization server's login page (user id + password). Public
 * like the demo tokens; stored as slow hashes like any password.
 */
export const DEMO_PASSWORDS = {
  user_sam: "sam-demo-password",
  user_alex: "alex-demo-password",
  user_kim: "kim-demo-password",
  user_noor: "noor-demo-password",
} as const;

/** Where the demo clients may send the browser back to (the api on its default port). */
const DEMO_REDIRECT_URIS = [
  "http://localhost:3000/oauth/callback",
  "http://127.0.0.1:3000/oauth/callback",
  // Swagger UI's OAuth 2 redirect page, served with the API docs at /docs.
  "http://localhost:3000/docs/oauth2-redirect.html",
];

/** Clients of the built-in authorization server: a public one (PKCE only) and a confidential one. */
export const DEMO_OAUTH_CLIENTS = {
  public: { clientId: "demo-spa", clientSecret: null },
  confidential: { clientId: "demo-backend", clientSecret: "demo-backend-secret-not-for-production" },
} as const;

/** The demo's "now": events before it are over or live, events after it are still to come. */
export const DEMO_NOW = "2026-03-01T19:00:00Z";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const ACCOUNTS: FixtureAccount[] = [
  {
    id: "acc_jane",
    slug: "jane-doe",
    name: "Jane Doe",
    partner: true,
    profile_image_url: "https://images.example.com/accounts/jane-doe/profile.jpg",
    cover_image_url: "https://images.example.com/accounts/jane-doe/cover.jpg",
  },
  {
    id: "acc_tom",
    slug: "tom-okafor",
    name: "Tom Okafor",
    partner: false,
    profile_image_url: "https://images.example.com/accounts/tom-okafor/profile.jpg",
    cover_image_url: null,
  },
  {
    id: "acc_peak",
    slug: "peak-studio",
    name: "Peak Studio",
    partner: true,
    profile_image_url: "https://images.example.com/accounts/peak-studio/profile.png",
    cover_image_url: "https://images.example.com/accounts/peak-studio/cover.png",
  },
  {
    id: "acc_ravi",
    slug: "ravi-patel",
    name: "Ravi Patel",
    partner: true,
    profile_image_url: "https://images.example.com/accounts/ravi-patel/profile.jpg",
    cover_image_url: null,
  },
  {
    id: "acc_mia",
    slug: "mia-schulz",
    name: "Mia Schulz",
    partner: false,
    profile_image_url: null,
    cover_image_url: null,
  },
  {
    id: "acc_lee",
    slug: "coach-lee",
    name: "Coach Lee Min-jun",
    partner: false,
    profile_image_url: null,
    cover_image_url: "https://images.example.com/accounts/coach-lee/cover.jpg",
  },
];

interface DemoTeam {
  key: string;
  id: string;
  name: string;
  accountIds: string[];
  events: { count: number; first: string; everyDays: number; themes: [name: string, slug: string][] };
  guides: { count: number; first: string; themes: [name: string, slug: string][] };
}

const TEAMS: DemoTeam[] = [
  {
    key: "runners",
    id: "team_runners",
    name: "Riverside Runners",
    accountIds: ["acc_jane", "acc_tom", "acc_peak"],
    events: {
      count: 40,
      first: "2026-01-06T18:30:00Z",
      everyDays: 3,
      themes: [
        ["Sunrise 5k", "sunrise-5k"],
        ["Track intervals", "track-intervals"],
        ["Long Sunday run", "long-sunday-run"],
        ["Hill repeats", "hill-repeats"],
        ["Café run ☕", "cafe-run"],
        ["Tempo Tuesday", "tempo-tuesday"],
        ["Riverside trail social", "riverside-trail-social"],
        ["Recovery jog", "recovery-jog"],
      ],
    },
    guides: {
      count: 24,
      first: "2025-11-03T09:00:00Z",
      themes: [
        ["Your first 5k", "first-5k"],
        ["Choosing running shoes", "running-shoes"],
        ["Pacing a half marathon", "half-marathon-pacing"],
        ["Strength work for runners", "strength-for-runners"],
        ["Running in the rain", "running-in-the-rain"],
        ["Fuel & hydration", "fuel-and-hydration"],
      ],
    },
  },
  {
    key: "climbers",
    id: "team_climbers",
    name: "Granite Climbers",
    accountIds: ["acc_ravi", "acc_mia", "acc_peak"],
    events: {
      count: 16,
      first: "2026-01-10T17:00:00Z",
      everyDays: 5,
      themes: [
        ["Bouldering night", "bouldering-night"],
        ["Lead climbing clinic", "lead-clinic"],
        ["Crag day", "crag-day"],
        ["Belay refresher", "belay-refresher"],
      ],
    },
    guides: {
      count: 10,
      first: "2025-12-01T09:00:00Z",
      themes: [
        ["Knots every climber needs", "essential-knots"],
        ["Reading a route", "reading-a-route"],
        ["Finger care", "finger-care"],
      ],
    },
  },
  {
    key: "swimmers",
    id: "team_swimmers",
    name: "Harbour Swimmers",
    accountIds: ["acc_lee", "acc_jane"],
    events: {
      count: 6,
      first: "2026-02-01T07:00:00Z",
      everyDays: 10,
      themes: [
        ["Open water swim", "open-water-swim"],
        ["Technique session", "technique-session"],
      ],
    },
    guides: {
      count: 4,
      first: "2026-01-05T09:00:00Z",
      themes: [
        ["Breathing on both sides", "bilateral-breathing"],
        ["Cold water safety", "cold-water-safety"],
      ],
    },
  },
];

const CURRENCIES: CurrencyCode[] = ["USD", "EUR", "JPY", "BHD", "GBP"];

/** Amounts in each currency's minor unit: JPY has none (2500 is ¥2,500), BHD has three (7.500). */
const AMOUNTS: Record<string, [number, number, number]> = {
  USD: [1999, 2500, 999],
  EUR: [1500, 1250, 2000],
  JPY: [2500, 1000, 3980],
  BHD: [7500, 1999, 12345],
  GBP: [1250, 899, 3000],
};

const DURATIONS = [3600, 5400, 1800, 7200, 2700];

function at(ms: number): string {
  return formatTimestamp(new Date(ms));
}

function pick<T>(items: readonly T[], index: number): T {
  const item = items[index % items.length];
  if (item === undefined) throw new RangeError("pick from an empty list");
  return item;
}

function price(index: number, teamIndex: number, freeEvery: number) {
  const currency = pick(CURRENCIES, index + teamIndex);
  const amounts = AMOUNTS[currency] ?? [0, 0, 0];
  return {
    value_in_cents: index % freeEvery === freeEvery - 1 ? 0 : pick(amounts, index),
    currency,
  };
}

const pad = (n: number) => String(n).padStart(3, "0");

function demoEvents(team: DemoTeam, teamIndex: number): FixtureEvent[] {
  const now = Date.parse(DEMO_NOW);
  const first = Date.parse(team.events.first);
  const step = team.events.everyDays * DAY;
  return Array.from({ length: team.events.count }, (_, i) => {
    // Ties on scheduled_at (pairs, and a triple every 16) make the id tie-break visible.
    const slot = i % 8 === 5 ? i - 1 : i % 16 === 6 ? i - 2 : i;
    const scheduled = first + slot * step;
    const duration = teamIndex === 2 && i === 0 ? 0 : pick(DURATIONS, i);
    const [themeName, themeSlug] = pick(team.events.themes, i);
    const slug = `${themeSlug}-${i + 1}`;

    let liveAt: number | null = null;
    let completedAt: number | null = null;
    let canceledAt: number | null = null;
    if (scheduled > now) {
      // Still to come; every fifth one was called off the day before the demo's "now".
      if (i % 5 === 4) canceledAt = now - DAY;
    } else if (i % 6 === 1) {
      canceledAt = scheduled - 2 * DAY;
    } else {
      liveAt = scheduled + (i % 3) * 60_000;
      // Live while it runs at the demo's "now", completed once it has run its duration.
      completedAt = liveAt + duration * 1000 <= now ? liveAt + duration * 1000 : null;
    }

    const account = pick(team.accountIds, i);
    return {
      id: `ev_${team.key}_${pad(i + 1)}`,
      team_id: team.id,
      account_id: account,
      slug,
      name: `${themeName} #${Math.floor(i / team.events.themes.length) + 1}`,
      description:
        i % 4 === 2 ? null : `${themeName} with ${team.name}. Meet 15 minutes early; all paces welcome — bring water.`,
      cover_url: i % 3 === 1 ? null : `https://images.example.com/events/${team.key}/${slug}.jpg`,
      duration_seconds: duration,
      scheduled_at: at(scheduled),
      live_at: liveAt === null ? null : at(liveAt),
      completed_at: completedAt === null ? null : at(completedAt),
      canceled_at: canceledAt === null ? null : at(canceledAt),
      offer_replay_purchase: i % 3 === 0,
      price: price(i, teamIndex, 4),
    };
  });
}

function demoGuides(team: DemoTeam, teamIndex: number): FixtureGuide[] {
  const first = Date.parse(team.guides.first);
  return Array.from({ length: team.guides.count }, (_, i) => {
    // Every fifth guide is a draft; every sixth was published together with the one before it.
    const slot = i % 6 === 4 ? i - 1 : i;
    const [themeName, themeSlug] = pick(team.guides.themes, i);
    const slug = `${themeSlug}-${i + 1}`;
    let cover: string | null = `https://images.example.com/guides/${team.key}/${slug}.jpg`;
    if (i % 4 === 3) cover = null;
    // The contract allows http:// too; one legacy image keeps that path exercised.
    if (i === 5) cover = `http://legacy-images.example.com/guides/${slug}.jpg`;
    return {
      id: `gd_${team.key}_${pad(i + 1)}`,
      team_id: team.id,
      account_id: pick(team.accountIds, i + 1),
      slug,
      name:
        i < team.guides.themes.length
          ? themeName
          : `${themeName}, part ${Math.floor(i / team.guides.themes.length) + 1}`,
      description: i % 5 === 4 ? null : `A ${team.name} guide: ${themeName.toLowerCase()}.`,
      cover_url: cover,
      published_at: i % 5 === 2 ? null : at(first + slot * 2 * DAY),
      price: price(i, teamIndex, 3),
    };
  });
}

function token(demo: DemoToken, expiresAt: string | null, revoked: boolean): FixtureAccessToken {
  return { token: demo.token, user_id: demo.userId, client_id: DEMO_CLIENT_ID, expires_at: expiresAt, revoked };
}

/** The demo data set; a fresh object on every call, always with the same content. */
export function demoFixture(): FixtureFile {
  const users: FixtureUser[] = [
    { id: "user_sam", name: "Sam Rivera", team_id: "team_runners", password: DEMO_PASSWORDS.user_sam },
    { id: "user_alex", name: "Alex Chen", team_id: "team_climbers", password: DEMO_PASSWORDS.user_alex },
    { id: "user_kim", name: "Kim Larsen", team_id: "team_swimmers", password: DEMO_PASSWORDS.user_kim },
    { id: "user_noor", name: "Noor Haddad", team_id: null, password: DEMO_PASSWORDS.user_noor },
  ];
  return {
    accounts: ACCOUNTS.map((account) => ({ ...account })),
    teams: TEAMS.map((team) => ({ id: team.id, name: team.name })),
    users,
    access_tokens: [
      token(DEMO_TOKENS.runners, null, false),
      token(DEMO_TOKENS.climbers, "2099-12-31T23:59:59Z", false),
      token(DEMO_TOKENS.swimmers, null, false),
      token(DEMO_TOKENS.noTeam, null, false),
      token(DEMO_TOKENS.expired, "2025-01-01T00:00:00Z", false),
      token(DEMO_TOKENS.revoked, null, true),
    ],
    events: TEAMS.flatMap((team, index) => demoEvents(team, index)),
    guides: TEAMS.flatMap((team, index) => demoGuides(team, index)),
    oauth_clients: [
      {
        client_id: DEMO_OAUTH_CLIENTS.public.clientId,
        name: "Demo single-page app",
        client_secret: DEMO_OAUTH_CLIENTS.public.clientSecret,
        redirect_uris: DEMO_REDIRECT_URIS,
      },
      {
        client_id: DEMO_OAUTH_CLIENTS.confidential.clientId,
        name: "Demo backend",
        client_secret: DEMO_OAUTH_CLIENTS.confidential.clientSecret,
        redirect_uris: DEMO_REDIRECT_URIS,
      },
    ],
  };
}
