import type { PrismaClient } from "@community/db";
import type { FixtureEvent, FixtureFile } from "@community/domain";

/** A small valid fixture in the shape of the contract's example (section 8). */
export function smallFixture(): FixtureFile {
  return {
    accounts: [
      {
        id: "acc_1",
        slug: "jane",
        name: "Jane",
        partner: true,
        profile_image_url: "https://images.example.com/jane.jpg",
        cover_image_url: null,
      },
      { id: "acc_2", slug: "ravi", name: "Ravi", partner: false, profile_image_url: null, cover_image_url: null },
    ],
    teams: [
      { id: "team_1", name: "Runners" },
      { id: "team_2", name: "Climbers" },
    ],
    users: [
      { id: "user_1", name: "Sam", team_id: "team_1" },
      { id: "user_2", name: "Noor", team_id: null },
    ],
    access_tokens: [
      { token: "plaintext-secret", user_id: "user_1", client_id: "demo-client", expires_at: null, revoked: false },
      {
        token: "expired-secret",
        user_id: "user_1",
        client_id: "demo-client",
        expires_at: "2025-01-01T00:00:00Z",
        revoked: false,
      },
      { token: "revoked-secret", user_id: "user_2", client_id: "demo-client", expires_at: null, revoked: true },
    ],
    events: [
      event("ev_1", { slug: "spring-run" }),
      event("ev_2", {
        slug: "night-run",
        scheduled_at: "2026-03-02T20:00:00Z",
        live_at: "2026-03-02T20:01:00Z",
        completed_at: "2026-03-02T21:01:00Z",
        description: "Headlamps on",
        cover_url: "http://images.example.com/night.jpg",
        price: { value_in_cents: 1500, currency: "JPY" },
      }),
      event("ev_3", { team_id: "team_2", account_id: "acc_2", slug: "spring-run" }),
    ],
    guides: [
      {
        id: "gd_1",
        team_id: "team_1",
        account_id: "acc_1",
        slug: "first-5k",
        name: "Your first 5k",
        description: "…",
        cover_url: null,
        published_at: "2026-02-01T09:00:00Z",
        price: { value_in_cents: 0, currency: "EUR" },
      },
      {
        id: "gd_2",
        team_id: "team_1",
        account_id: "acc_2",
        slug: "draft",
        name: "A draft",
        description: null,
        cover_url: "https://images.example.com/draft.png",
        published_at: null,
        price: { value_in_cents: 1999, currency: "BHD" },
      },
    ],
  } satisfies FixtureFile;
}

export function emptyFixture(): FixtureFile {
  return { accounts: [], teams: [], users: [], access_tokens: [], events: [], guides: [] };
}

export function event(id: string, overrides: Partial<FixtureEvent> = {}): FixtureEvent {
  return {
    id,
    team_id: "team_1",
    account_id: "acc_1",
    slug: id.replace(/_/g, "-"),
    name: `Event ${id}`,
    description: null,
    cover_url: null,
    duration_seconds: 3600,
    scheduled_at: "2026-03-01T18:30:00Z",
    live_at: null,
    completed_at: null,
    canceled_at: null,
    offer_replay_purchase: false,
    price: { value_in_cents: 1999, currency: "USD" },
    ...overrides,
  };
}

/** `items[index]`, failing the test if it is missing (instead of a non-null assertion). */
export function nth<T>(items: readonly T[], index: number): T {
  const item = items[index];
  if (item === undefined) throw new Error(`no item at index ${index}`);
  return item;
}

/** Empties every table between tests of one suite (the suite owns its database). */
export async function truncateAll(prisma: PrismaClient): Promise<void> {
  await prisma.$executeRawUnsafe(
    "TRUNCATE TABLE access_tokens, events, guides, users, teams, accounts, oauth_clients RESTART IDENTITY CASCADE",
  );
}

/** Every row of every table in a stable order, to compare database states. */
export async function snapshot(prisma: PrismaClient) {
  return {
    accounts: await prisma.account.findMany({ orderBy: { id: "asc" } }),
    teams: await prisma.team.findMany({ orderBy: { id: "asc" } }),
    users: await prisma.user.findMany({ orderBy: { id: "asc" } }),
    accessTokens: await prisma.accessToken.findMany({ orderBy: { tokenHash: "asc" } }),
    events: await prisma.event.findMany({ orderBy: { id: "asc" } }),
    guides: await prisma.guide.findMany({ orderBy: { id: "asc" } }),
  };
}

export async function rowCounts(prisma: PrismaClient) {
  return {
    accounts: await prisma.account.count(),
    teams: await prisma.team.count(),
    users: await prisma.user.count(),
    access_tokens: await prisma.accessToken.count(),
    events: await prisma.event.count(),
    guides: await prisma.guide.count(),
  };
}
