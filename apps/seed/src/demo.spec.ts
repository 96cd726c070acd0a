import { type FixtureEvent, type FixtureFile, isTimestamp, minorUnitDigits, validateFixture } from "@community/domain";
import { DEMO_CLIENT_ID, DEMO_NOW, DEMO_OAUTH_CLIENTS, DEMO_PASSWORDS, DEMO_TOKENS, demoFixture } from "./demo";
import { nth } from "./testing/fixtures";

const ms = (timestamp: string | null) => (timestamp === null ? null : Date.parse(timestamp));

describe(demoFixture.name, () => {
  const demo: FixtureFile = demoFixture();

  it("passes validateFixture", () => {
    expect(validateFixture(demo)).toEqual({ ok: true, fixture: demo });
  });

  it("gives every demo user its documented password and registers a public and a confidential client", () => {
    expect(Object.fromEntries(demo.users.map((user) => [user.id, user.password]))).toEqual(DEMO_PASSWORDS);
    const clients = demo.oauth_clients ?? [];
    expect(clients.map((c) => [c.client_id, c.client_secret])).toEqual([
      [DEMO_OAUTH_CLIENTS.public.clientId, null],
      [DEMO_OAUTH_CLIENTS.confidential.clientId, DEMO_OAUTH_CLIENTS.confidential.clientSecret],
    ]);
    for (const client of clients) {
      expect(client.redirect_uris).toContain("http://localhost:3000/docs/oauth2-redirect.html");
      expect(client.redirect_uris).toContain("http://localhost:3000/oauth/callback");
    }
  });

  it("is deterministic and hands out a fresh copy on every call", () => {
    const again = demoFixture();
    expect(again).toEqual(demo);
    nth(again.events, 0).name = "changed";
    expect(nth(demoFixture().events, 0).name).not.toBe("changed");
  });

  it("has three teams, six accounts, and a user without a team", () => {
    expect(demo.teams).toHaveLength(3);
    expect(demo.accounts).toHaveLength(6);
    expect(demo.users.filter((user) => user.team_id === null)).toHaveLength(1);
    const partners = demo.accounts.filter((account) => account.partner);
    expect(partners.length).toBeGreaterThan(0);
    for (const account of partners) {
      expect(account.profile_image_url).toMatch(/^https:\/\/images\.example\.com\//);
    }
  });

  it("gives the first team 40 events and the others fewer", () => {
    const perTeam = demo.teams.map((team) => demo.events.filter((e) => e.team_id === team.id).length);
    expect(perTeam[0]).toBe(40);
    expect(perTeam.slice(1).every((count) => count > 0 && count < 40)).toBe(true);
  });

  it("has an access token for each documented demo token, with the documented state", () => {
    const byToken = new Map(demo.access_tokens.map((t) => [t.token, t]));
    for (const demoToken of Object.values(DEMO_TOKENS)) {
      expect(byToken.get(demoToken.token)).toMatchObject({ user_id: demoToken.userId, client_id: DEMO_CLIENT_ID });
    }
    expect(byToken.get(DEMO_TOKENS.revoked.token)?.revoked).toBe(true);
    const expired = byToken.get(DEMO_TOKENS.expired.token)?.expires_at;
    expect(ms(expired ?? null)).toBeLessThan(Date.parse("2026-01-01T00:00:00Z"));
    const noTeamUser = demo.users.find((user) => user.id === DEMO_TOKENS.noTeam.userId);
    expect(noTeamUser?.team_id).toBeNull();
    for (const name of ["runners", "climbers", "swimmers"] as const) {
      const token = byToken.get(DEMO_TOKENS[name].token);
      expect(token?.revoked).toBe(false);
      const expiresAt = ms(token?.expires_at ?? null);
      expect(expiresAt === null || expiresAt > Date.parse("2099-01-01T00:00:00Z")).toBe(true);
    }
  });

  it("keeps every event's state consistent in time", () => {
    const now = Date.parse(DEMO_NOW);
    const state = (e: FixtureEvent) =>
      e.canceled_at ? "canceled" : e.completed_at ? "completed" : e.live_at ? "live" : "scheduled";
    for (const e of demo.events) {
      const scheduled = Date.parse(e.scheduled_at);
      if (e.live_at !== null) expect(ms(e.live_at)).toBeGreaterThanOrEqual(scheduled);
      if (e.completed_at !== null) {
        expect(e.live_at).not.toBeNull();
        expect(ms(e.completed_at)).toBeGreaterThanOrEqual(ms(e.live_at) ?? Number.NaN);
        expect(ms(e.completed_at)).toBeLessThanOrEqual(now);
      }
      if (e.canceled_at !== null) {
        expect(e.live_at).toBeNull();
        expect(ms(e.canceled_at)).toBeLessThanOrEqual(scheduled);
      }
      if (state(e) === "scheduled") expect(scheduled).toBeGreaterThan(now);
    }
    const runnerStates = new Set(demo.events.filter((e) => e.team_id === "team_runners").map(state));
    expect([...runnerStates].sort()).toEqual(["canceled", "completed", "live", "scheduled"]);
  });

  it("has events that share scheduled_at, so that the id tie-break matters", () => {
    const seen = new Map<string, number>();
    for (const e of demo.events) {
      const key = `${e.team_id} ${e.scheduled_at}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
    expect([...seen.values()].filter((n) => n > 1).length).toBeGreaterThanOrEqual(3);
    expect(Math.max(...seen.values())).toBeGreaterThanOrEqual(3);
  });

  it("uses USD, EUR, JPY, BHD and GBP, with free items and whole minor units", () => {
    const items = [...demo.events, ...demo.guides];
    expect(new Set(items.map((item) => item.price.currency))).toEqual(new Set(["USD", "EUR", "JPY", "BHD", "GBP"]));
    expect(items.some((item) => item.price.value_in_cents === 0)).toBe(true);
    expect(items.every((item) => Number.isInteger(item.price.value_in_cents))).toBe(true);
    // A BHD amount with a non-zero third decimal shows the 3-digit minor unit.
    expect(
      items.some((item) => minorUnitDigits(item.price.currency) === 3 && item.price.value_in_cents % 10 !== 0),
    ).toBe(true);
  });

  it("has tens of guides, some drafts, some free, with timestamps in the contract's format", () => {
    expect(demo.guides.length).toBeGreaterThanOrEqual(20);
    expect(demo.guides.some((guide) => guide.published_at === null)).toBe(true);
    expect(demo.guides.some((guide) => guide.price.value_in_cents === 0)).toBe(true);
    for (const guide of demo.guides) {
      if (guide.published_at !== null) expect(isTimestamp(guide.published_at)).toBe(true);
    }
  });
});
