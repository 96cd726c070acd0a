import { createDatabase, type Database, hashToken, verifySecret } from "@community/db";
import { createTestDatabase, type TestDatabase } from "@community/db/testing";
import type { FixtureFile } from "@community/domain";
import { DEMO_TOKENS, demoFixture } from "./demo";
import { FixtureValidationError } from "./errors";
import { loadFixture } from "./loader";
import { emptyFixture, event, nth, rowCounts, smallFixture, snapshot, truncateAll } from "./testing/fixtures";

/** Runs a load that must fail validation and returns its issues. */
async function issuesOf(load: Promise<unknown>) {
  const error = await load.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FixtureValidationError);
  return (error as FixtureValidationError).issues;
}

describe(loadFixture.name, () => {
  let testDb: TestDatabase;
  let db: Database;

  beforeAll(async () => {
    testDb = await createTestDatabase("seed_loader");
    db = createDatabase({ url: testDb.url, poolMax: 4 });
  });

  afterAll(async () => {
    await db?.close();
    await testDb?.drop();
  });

  beforeEach(async () => {
    await truncateAll(db.prisma);
  });

  it("writes every collection and returns the count of each", async () => {
    const counts = await loadFixture(db.prisma, smallFixture());

    expect(counts).toEqual({ accounts: 2, teams: 2, users: 2, access_tokens: 3, events: 3, guides: 2 });
    expect(await rowCounts(db.prisma)).toEqual(counts);
  });

  it("maps fields to columns: timestamps to instants, prices to integer minor units, nulls kept", async () => {
    await loadFixture(db.prisma, smallFixture());

    const ev2 = await db.prisma.event.findUniqueOrThrow({ where: { id: "ev_2" } });
    expect(ev2).toEqual({
      id: "ev_2",
      teamId: "team_1",
      accountId: "acc_1",
      slug: "night-run",
      name: "Event ev_2",
      description: "Headlamps on",
      coverUrl: "http://images.example.com/night.jpg",
      durationSeconds: 3600,
      scheduledAt: new Date("2026-03-02T20:00:00Z"),
      liveAt: new Date("2026-03-02T20:01:00Z"),
      completedAt: new Date("2026-03-02T21:01:00Z"),
      canceledAt: null,
      offerReplayPurchase: false,
      priceInCents: 1500,
      currency: "JPY",
    });
    const draft = await db.prisma.guide.findUniqueOrThrow({ where: { id: "gd_2" } });
    expect(draft).toMatchObject({ publishedAt: null, priceInCents: 1999, currency: "BHD", description: null });
    const noTeam = await db.prisma.user.findUniqueOrThrow({ where: { id: "user_2" } });
    expect(noTeam.teamId).toBeNull();
    const jane = await db.prisma.account.findUniqueOrThrow({ where: { id: "acc_1" } });
    expect(jane).toEqual({
      id: "acc_1",
      slug: "jane",
      name: "Jane",
      partner: true,
      profileImageUrl: "https://images.example.com/jane.jpg",
      coverImageUrl: null,
    });
  });

  it("is idempotent: loading the same file twice leaves the same rows and returns the same counts", async () => {
    const first = await loadFixture(db.prisma, smallFixture());
    const before = await snapshot(db.prisma);

    const second = await loadFixture(db.prisma, smallFixture());

    expect(second).toEqual(first);
    expect(await snapshot(db.prisma)).toEqual(before);
  });

  it("updates rows by id when a reloaded file changes them", async () => {
    await loadFixture(db.prisma, smallFixture());
    const changed = smallFixture();
    changed.teams[0] = { id: "team_1", name: "Riverside Runners" };
    changed.accounts[1] = { ...nth(changed.accounts, 1), name: "Ravi P.", partner: true };
    changed.users[1] = { id: "user_2", name: "Noor", team_id: "team_2" };
    changed.events[0] = event("ev_1", {
      slug: "spring-run-2026",
      name: "Spring run (moved)",
      scheduled_at: "2026-03-08T18:30:00Z",
      canceled_at: "2026-03-01T10:00:00Z",
      price: { value_in_cents: 2500, currency: "GBP" },
    });

    await loadFixture(db.prisma, changed);

    expect(await db.prisma.team.findUnique({ where: { id: "team_1" } })).toEqual({
      id: "team_1",
      name: "Riverside Runners",
    });
    expect(await db.prisma.account.findUnique({ where: { id: "acc_2" } })).toMatchObject({
      name: "Ravi P.",
      partner: true,
    });
    expect((await db.prisma.user.findUniqueOrThrow({ where: { id: "user_2" } })).teamId).toBe("team_2");
    expect(await db.prisma.event.findUnique({ where: { id: "ev_1" } })).toMatchObject({
      slug: "spring-run-2026",
      name: "Spring run (moved)",
      scheduledAt: new Date("2026-03-08T18:30:00Z"),
      canceledAt: new Date("2026-03-01T10:00:00Z"),
      priceInCents: 2500,
      currency: "GBP",
    });
    expect(await rowCounts(db.prisma)).toEqual({
      accounts: 2,
      teams: 2,
      users: 2,
      access_tokens: 3,
      events: 3,
      guides: 2,
    });
  });

  it("resolves references to rows that an earlier load put in the database", async () => {
    await loadFixture(db.prisma, smallFixture());
    const second: FixtureFile = {
      ...emptyFixture(),
      users: [{ id: "user_3", name: "Kim", team_id: "team_2" }],
      access_tokens: [{ token: "kim-secret", user_id: "user_3", client_id: "c", expires_at: null, revoked: false }],
      events: [event("ev_10", { team_id: "team_2", account_id: "acc_1" })],
      guides: [
        { ...nth(smallFixture().guides, 0), id: "gd_10", slug: "other", team_id: "team_2", account_id: "acc_2" },
      ],
    };

    const counts = await loadFixture(db.prisma, second);

    expect(counts).toMatchObject({ users: 1, access_tokens: 1, events: 1, guides: 1 });
    expect(await db.prisma.event.findUnique({ where: { id: "ev_10" } })).toMatchObject({
      teamId: "team_2",
      accountId: "acc_1",
    });
    expect(await db.prisma.accessToken.count({ where: { userId: "user_3" } })).toBe(1);
  });

  it("stores passwords and client secrets only as slow hashes, and keeps a password the file leaves out", async () => {
    const fixture = smallFixture();
    nth(fixture.users, 0).password = "first-password";
    nth(fixture.users, 1).password = null;
    fixture.oauth_clients = [
      { client_id: "spa", name: "SPA", client_secret: null, redirect_uris: ["http://localhost/cb"] },
      {
        client_id: "backend",
        name: "Backend",
        client_secret: "backend-secret-0123456789",
        redirect_uris: ["https://a.example/cb", "https://b.example/cb"],
      },
    ];

    const counts = await loadFixture(db.prisma, fixture);

    expect(counts.oauth_clients).toBe(2);
    const user = await db.prisma.user.findUniqueOrThrow({ where: { id: nth(fixture.users, 0).id } });
    expect(user.passwordHash).toMatch(/^scrypt\$/);
    await expect(verifySecret("first-password", user.passwordHash ?? "")).resolves.toBe(true);
    const other = await db.prisma.user.findUniqueOrThrow({ where: { id: nth(fixture.users, 1).id } });
    expect(other.passwordHash).toBeNull();
    const clients = await db.prisma.oAuthClient.findMany({ orderBy: { clientId: "asc" } });
    expect(clients.map((c) => [c.clientId, c.redirectUris, c.secretHash === null])).toEqual([
      ["backend", ["https://a.example/cb", "https://b.example/cb"], false],
      ["spa", ["http://localhost/cb"], true],
    ]);
    await expect(verifySecret("backend-secret-0123456789", clients[0]?.secretHash ?? "")).resolves.toBe(true);

    // Reloading without the password key keeps the stored hash; the client is updated in place.
    const again = smallFixture();
    again.oauth_clients = [{ client_id: "spa", name: "SPA 2", client_secret: null, redirect_uris: ["http://x/cb"] }];
    await loadFixture(db.prisma, again);
    const kept = await db.prisma.user.findUniqueOrThrow({ where: { id: nth(fixture.users, 0).id } });
    expect(kept.passwordHash).toBe(user.passwordHash);
    expect(await db.prisma.oAuthClient.findUnique({ where: { clientId: "spa" } })).toMatchObject({
      name: "SPA 2",
      redirectUris: ["http://x/cb"],
    });
  });

  it("names every unresolved reference by path and writes nothing, not even the valid entries", async () => {
    const fixture = smallFixture();
    fixture.users.push({ id: "user_9", name: "Lost", team_id: "team_9" });
    fixture.access_tokens.push({ token: "t9", user_id: "user_404", client_id: "c", expires_at: null, revoked: false });
    fixture.events.push(event("ev_9", { account_id: "acc_9" }));
    fixture.guides.push({ ...nth(fixture.guides, 0), id: "gd_9", slug: "x", team_id: "team_404" });

    const issues = await issuesOf(loadFixture(db.prisma, fixture));

    expect(issues).toEqual([
      {
        path: "users[2].team_id",
        message: 'refers to team "team_9", which is neither in the file nor in the database',
      },
      {
        path: "access_tokens[3].user_id",
        message: 'refers to user "user_404", which is neither in the file nor in the database',
      },
      {
        path: "events[3].account_id",
        message: 'refers to account "acc_9", which is neither in the file nor in the database',
      },
      {
        path: "guides[2].team_id",
        message: 'refers to team "team_404", which is neither in the file nor in the database',
      },
    ]);
    expect(await rowCounts(db.prisma)).toEqual({
      accounts: 0,
      teams: 0,
      users: 0,
      access_tokens: 0,
      events: 0,
      guides: 0,
    });
  });

  it("rejects a file that fails shape validation before touching the database", async () => {
    const fixture = smallFixture();
    nth(fixture.events, 1).price.currency = "usd";
    nth(fixture.events, 2).scheduled_at = "2026-03-01T18:30:00.000Z";

    const issues = await issuesOf(loadFixture(db.prisma, fixture));

    expect(issues.map((issue) => issue.path)).toEqual(["events[1].price.currency", "events[2].scheduled_at"]);
    expect(await db.prisma.account.count()).toBe(0);
  });

  it("reports an account slug that another row of the database holds, by path", async () => {
    await loadFixture(db.prisma, smallFixture());
    const before = await snapshot(db.prisma);
    const fixture: FixtureFile = {
      ...emptyFixture(),
      accounts: [
        { id: "acc_3", slug: "free", name: "Free", partner: false, profile_image_url: null, cover_image_url: null },
        {
          id: "acc_4",
          slug: "jane",
          name: "Other Jane",
          partner: false,
          profile_image_url: null,
          cover_image_url: null,
        },
      ],
    };

    const issues = await issuesOf(loadFixture(db.prisma, fixture));

    expect(issues).toEqual([
      { path: "accounts[1].slug", message: 'slug "jane" is already used by account "acc_1" in the database' },
    ]);
    expect(await snapshot(db.prisma)).toEqual(before);
  });

  it("reports an event or guide slug taken within the same team, and allows it in another team", async () => {
    await loadFixture(db.prisma, smallFixture());
    const fixture: FixtureFile = {
      ...emptyFixture(),
      events: [
        event("ev_20", { team_id: "team_1", slug: "night-run" }),
        event("ev_21", { team_id: "team_2", slug: "night-run", account_id: "acc_2" }),
      ],
      guides: [{ ...nth(smallFixture().guides, 0), id: "gd_20", slug: "draft" }],
    };

    const issues = await issuesOf(loadFixture(db.prisma, fixture));

    expect(issues).toEqual([
      {
        path: "events[0].slug",
        message: 'slug "night-run" is already used by event "ev_2" of team "team_1" in the database',
      },
      {
        path: "guides[0].slug",
        message: 'slug "draft" is already used by guide "gd_2" of team "team_1" in the database',
      },
    ]);
    expect(await db.prisma.event.count()).toBe(3);
  });

  it("lets one file swap the slugs of two existing rows", async () => {
    await loadFixture(db.prisma, smallFixture());
    const swapped = smallFixture();
    nth(swapped.accounts, 0).slug = "ravi";
    nth(swapped.accounts, 1).slug = "jane";
    nth(swapped.events, 0).slug = "night-run";
    nth(swapped.events, 1).slug = "spring-run";

    await loadFixture(db.prisma, swapped);

    const accounts = await db.prisma.account.findMany({ orderBy: { id: "asc" }, select: { id: true, slug: true } });
    expect(accounts).toEqual([
      { id: "acc_1", slug: "ravi" },
      { id: "acc_2", slug: "jane" },
    ]);
    const events = await db.prisma.event.findMany({
      where: { teamId: "team_1" },
      orderBy: { id: "asc" },
      select: { id: true, slug: true },
    });
    expect(events).toEqual([
      { id: "ev_1", slug: "night-run" },
      { id: "ev_2", slug: "spring-run" },
    ]);
  });

  it("stores an access token only as the SHA-256 hex digest of its plaintext", async () => {
    await loadFixture(db.prisma, smallFixture());

    const tokens = await db.prisma.accessToken.findMany({ orderBy: { tokenHash: "asc" } });
    expect(tokens.map((t) => t.tokenHash).sort()).toEqual(
      ["plaintext-secret", "expired-secret", "revoked-secret"].map(hashToken).sort(),
    );
    expect(tokens.every((t) => /^[0-9a-f]{64}$/.test(t.tokenHash))).toBe(true);
    // No column of any row carries the plaintext, whatever its name.
    const leaks = await db.prisma.$queryRaw<{ n: bigint }[]>`
      SELECT count(*) AS n FROM access_tokens t WHERE t::text LIKE '%secret%'`;
    expect(Number(leaks[0]?.n)).toBe(0);
  });

  it("maps expires_at and revoked, keeps the first revocation time and clears it when revoked is false", async () => {
    await loadFixture(db.prisma, smallFixture());
    const byToken = (token: string) =>
      db.prisma.accessToken.findUniqueOrThrow({ where: { tokenHash: hashToken(token) } });

    expect(await byToken("plaintext-secret")).toMatchObject({
      userId: "user_1",
      clientId: "demo-client",
      expiresAt: null,
      revokedAt: null,
    });
    expect((await byToken("expired-secret")).expiresAt).toEqual(new Date("2025-01-01T00:00:00Z"));
    const revoked = await byToken("revoked-secret");
    expect(revoked.revokedAt).toBeInstanceOf(Date);

    // A later reload of the same file must not move the revocation time.
    await new Promise((resolve) => setTimeout(resolve, 20));
    await loadFixture(db.prisma, smallFixture());
    expect((await byToken("revoked-secret")).revokedAt).toEqual(revoked.revokedAt);

    const unrevoked = smallFixture();
    nth(unrevoked.access_tokens, 2).revoked = false;
    nth(unrevoked.access_tokens, 0).revoked = true;
    await loadFixture(db.prisma, unrevoked);
    expect((await byToken("revoked-secret")).revokedAt).toBeNull();
    expect((await byToken("plaintext-secret")).revokedAt).toBeInstanceOf(Date);
  });

  it("writes in batches, reporting progress after each one", async () => {
    const fixture = smallFixture();
    for (let i = 100; i < 150; i++) fixture.events.push(event(`ev_${i}`));
    const progress: [number, number][] = [];

    const counts = await loadFixture(db.prisma, fixture, {
      batchSize: 7,
      onProgress: (done, total) => progress.push([done, total]),
    });

    expect(counts.events).toBe(53);
    expect(await db.prisma.event.count()).toBe(53);
    const total = 2 + 2 + 2 + 3 + 53 + 2;
    expect(progress.every(([, t]) => t === total)).toBe(true);
    expect(progress.at(-1)).toEqual([total, total]);
    const dones = progress.map(([done]) => done);
    expect(dones).toEqual([...dones].sort((a, b) => a - b));
    // 53 events in batches of 7 take 8 statements.
    expect(progress.length).toBe(1 + 1 + 1 + 1 + 8 + 1);
  });

  it("runs in one transaction: a load that cannot finish leaves nothing behind", async () => {
    const fixture = smallFixture();
    for (let i = 100; i < 400; i++) fixture.events.push(event(`ev_${i}`));

    await expect(
      loadFixture(db.prisma, fixture, {
        batchSize: 1,
        onProgress: (done) => {
          if (done === 250) throw new Error("interrupted half-way");
        },
      }),
    ).rejects.toThrow("interrupted half-way");

    expect(await rowCounts(db.prisma)).toEqual({
      accounts: 0,
      teams: 0,
      users: 0,
      access_tokens: 0,
      events: 0,
      guides: 0,
    });
  });

  it("loads the demo data, twice, with the same result", async () => {
    const demo = demoFixture();
    const counts = await loadFixture(db.prisma, demo);
    const before = await snapshot(db.prisma);

    expect(await loadFixture(db.prisma, demoFixture())).toEqual(counts);

    expect(await snapshot(db.prisma)).toEqual(before);
    expect(await rowCounts(db.prisma)).toEqual({
      accounts: demo.accounts.length,
      teams: 3,
      users: demo.users.length,
      access_tokens: demo.access_tokens.length,
      events: demo.events.length,
      guides: demo.guides.length,
    });
    const revoked = await db.prisma.accessToken.findUniqueOrThrow({
      where: { tokenHash: hashToken(DEMO_TOKENS.revoked.token) },
    });
    expect(revoked.revokedAt).not.toBeNull();
    expect(await db.prisma.event.count({ where: { teamId: "team_runners" } })).toBe(40);
  });

  it("still checks references against the database when told the shape is already validated", async () => {
    const fixture: FixtureFile = { ...emptyFixture(), events: [event("ev_1")] };

    const issues = await issuesOf(loadFixture(db.prisma, fixture, { alreadyValidated: true }));

    expect(issues.map((issue) => issue.path)).toEqual(["events[0].team_id", "events[0].account_id"]);
  });

  it("rejects a batch size that is not a positive integer", async () => {
    await expect(loadFixture(db.prisma, smallFixture(), { batchSize: 0 })).rejects.toThrow(RangeError);
  });
});
