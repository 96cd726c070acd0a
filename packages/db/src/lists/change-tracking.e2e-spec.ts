import { Pool as PgPool, type Pool, type PoolClient } from "pg";
import { createTestDatabase, type TestDatabase } from "../testing";

// The triggers that keep team_list_stats and team_list_changes, under overlapping transactions
// (prisma/migrations/20261124120000_team_list_commit_tracking, docs/database.md "Change tracking").
describe("list change tracking under concurrent writers", () => {
  let testDb: TestDatabase;
  let db: Pool;
  let next = 0;

  const insertSql = `INSERT INTO events (id, team_id, account_id, slug, name, duration_seconds, scheduled_at,
                                         offer_replay_purchase, price_in_cents, currency)
    SELECT f.id, $2, $3, f.id, f.id, 60, '2026-01-01T00:00:00Z'::timestamptz - f.n * interval '1 minute', false, 0, 'USD'
      FROM unnest($1::text[]) WITH ORDINALITY AS f(id, n)`;
  const newIds = (n: number) => Array.from({ length: n }, () => `ev_${String(next++).padStart(5, "0")}`);
  const insertEvents = (on: Pool | PoolClient, team: string, n: number, account = "acc_1") =>
    on.query(insertSql, [newIds(n), team, account]);

  /** The list's version, count, count(*) and the account names it shows, from one snapshot. */
  const state = async (team: string) => {
    const { rows } = await db.query<{ version: string; item_count: number; actual: number; names: string[] }>(
      `SELECT s.version::text, s.item_count::int,
              (SELECT count(*)::int FROM events e WHERE e.team_id = $1) AS actual,
              (SELECT array_agg(DISTINCT a.name ORDER BY a.name) FROM events e JOIN accounts a ON a.id = e.account_id
                WHERE e.team_id = $1) AS names
         FROM team_list_stats s WHERE s.team_id = $1 AND s.list = 'events'`,
      [team],
    );
    return rows[0];
  };

  const backendPid = async (client: PoolClient) =>
    (await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]?.pid;
  /** Resolves once the backend waits for a lock, or `done` has settled (it did not have to wait). */
  /** Runs `race` on two sessions of its own, both released whatever happens. */
  const withTwoSessions = async (race: (a: PoolClient, b: PoolClient) => Promise<void>) => {
    const a = await db.connect();
    const b = await db.connect();
    try {
      await race(a, b);
    } finally {
      a.release();
      b.release();
    }
  };

  const blockedOrDone = async (pid: number | undefined, done: Promise<unknown>) => {
    let settled = false;
    void done.then(
      () => {
        settled = true;
      },
      () => {
        settled = true;
      },
    );
    for (;;) {
      if (settled) return;
      const { rows } = await db.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'", [
        pid,
      ]);
      if (rows.length > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };

  beforeAll(async () => {
    testDb = await createTestDatabase("change_tracking");
    db = new PgPool({ connectionString: testDb.url, max: 6 });
    // Dropping the database ends the pool's idle connections: expected, not a failure.
    db.on("error", () => undefined);
    await db.query(
      `INSERT INTO accounts (id, slug, name, partner) VALUES ('acc_1', 'one', 'One', false), ('acc_2', 'two', 'Two', false)`,
    );
    await db.query(`INSERT INTO teams (id, name) VALUES ('team_a', 'A'), ('team_b', 'B'), ('team_c', 'C')`);
    await insertEvents(db, "team_a", 50);
    await insertEvents(db, "team_b", 50);
  });

  afterAll(async () => {
    await db?.end();
    await testDb?.drop();
  });

  it("moves the version after an account rename that raced an insert of one of its items", () =>
    withTwoSessions(async (renamer, writer) => {
      // Each version names one content: the same version with other names is a stale validator.
      const seen = new Map<string, string>();
      const record = async () => {
        const now = await state("team_c");
        if (now === undefined) return;
        const names = JSON.stringify(now.names);
        expect({ version: now.version, names: seen.get(now.version) ?? names }).toEqual({
          version: now.version,
          names,
        });
        seen.set(now.version, names);
      };
      await insertEvents(db, "team_c", 1, "acc_1");
      await record();
      await renamer.query("BEGIN");
      await renamer.query("UPDATE accounts SET name = 'Two renamed' WHERE id = 'acc_2'");
      const pid = await backendPid(writer);
      await writer.query("BEGIN");
      await insertEvents(writer, "team_c", 1, "acc_2");
      const committed = writer.query("COMMIT");
      await blockedOrDone(pid, committed);
      await record();
      await renamer.query("COMMIT");
      await committed;
      await record();
      expect((await state("team_c"))?.names).toEqual(["One", "Two renamed"]);
    }));

  it("commits an item writer whose account's rename waits for the writer's rows, without a deadlock", () =>
    withTwoSessions(async (writer, renamer) => {
      const [held] = newIds(1) as [string];
      await db.query(insertSql, [[held], "team_c", "acc_2"]);
      const pid = await backendPid(renamer);
      await writer.query("BEGIN");
      await insertEvents(writer, "team_c", 1, "acc_2");
      await writer.query("UPDATE events SET name = 'writer' WHERE id = $1", [held]);
      await renamer.query("BEGIN");
      await renamer.query("UPDATE accounts SET name = 'Two again' WHERE id = 'acc_2'");
      const waiting = renamer.query("UPDATE events SET name = 'renamer' WHERE id = $1", [held]);
      await blockedOrDone(pid, waiting);
      const outcomes = await Promise.allSettled([writer.query("COMMIT"), waiting]);
      await renamer.query("COMMIT");
      expect(outcomes.filter((outcome) => outcome.status === "rejected")).toEqual([]);
      const now = await state("team_c");
      expect(now?.names).toContain("Two again");
      expect(now?.item_count).toBe(now?.actual);
    }));

  it("never moves a version backwards when a writer waits behind another", () =>
    withTwoSessions(async (first, second) => {
      const before = await state("team_a");
      await first.query("BEGIN");
      await first.query("UPDATE events SET name = name WHERE team_id = 'team_a'");
      const pid = await backendPid(second);
      await second.query("BEGIN");
      const inserted = insertEvents(second, "team_a", 1);
      await blockedOrDone(pid, inserted);
      await first.query("UPDATE events SET name = name WHERE team_id = 'team_a'");
      await first.query("COMMIT");
      const afterFirst = await state("team_a");
      await inserted;
      await second.query("COMMIT");
      const afterSecond = await state("team_a");
      expect(BigInt(afterFirst?.version ?? 0)).toBeGreaterThan(BigInt(before?.version ?? 0));
      expect(BigInt(afterSecond?.version ?? 0)).toBeGreaterThan(BigInt(afterFirst?.version ?? 0));
      expect(afterSecond?.item_count).toBe(afterSecond?.actual);
      // The insert's range is logged with the newest version, so boundary readers re-read it.
      const { rows } = await db.query<{ version: string }>(
        "SELECT max(version)::text AS version FROM team_list_changes WHERE team_id = 'team_a' AND list = 'events'",
      );
      expect(rows[0]?.version).toBe(afterSecond?.version);
    }));

  it("logs an UPDATE that changes an item's id and team for both teams, and an id change alone", async () => {
    const { rows } = await db.query<{ id: string; at: string }>(
      "SELECT id, scheduled_at::text AS at FROM events WHERE team_id = 'team_a' ORDER BY scheduled_at DESC, id LIMIT 2",
    );
    await db.query("UPDATE events SET id = id || '_moved', team_id = 'team_b' WHERE id = $1", [rows[0]?.id]);
    await db.query("UPDATE events SET id = id || '_renamed' WHERE id = $1", [rows[1]?.id]);
    // The newest entry of each list is the statement that touched it last.
    const { rows: newest } = await db.query<{ team_id: string; low_key: string; high_key: string }>(
      `SELECT DISTINCT ON (team_id) team_id, low_key::text, high_key::text FROM team_list_changes
        WHERE list = 'events' AND team_id IN ('team_a', 'team_b') ORDER BY team_id, version DESC`,
    );
    expect(newest).toEqual([
      { team_id: "team_a", low_key: rows[1]?.at, high_key: rows[1]?.at },
      { team_id: "team_b", low_key: rows[0]?.at, high_key: rows[0]?.at },
    ]);
    for (const team of ["team_a", "team_b"]) {
      const now = await state(team);
      expect(now?.item_count).toBe(now?.actual);
    }
  });

  it("runs mirrored multi-team upserts side by side without a deadlock", async () => {
    const ids = { a: newIds(1)[0] as string, b: newIds(1)[0] as string };
    await db.query(insertSql, [[ids.a], "team_a", "acc_1"]);
    await db.query(insertSql, [[ids.b], "team_b", "acc_1"]);
    // Each statement updates one team's event and inserts into the other team.
    const upsert = `INSERT INTO events AS e (id, team_id, account_id, slug, name, duration_seconds, scheduled_at,
                                             offer_replay_purchase, price_in_cents, currency)
      SELECT f.id, f.team_id, 'acc_1', f.id, f.id, 60, '2026-02-01T00:00:00Z', false, 0, 'USD'
        FROM unnest($1::text[], $2::text[]) AS f(id, team_id)
      ON CONFLICT (id) DO UPDATE SET name = e.name || '.'`;
    const failures: string[] = [];
    for (let round = 0; round < 30; round++) {
      const [fresh1, fresh2] = newIds(2) as [string, string];
      const results = await Promise.allSettled([
        db.query(upsert, [
          [ids.a, fresh1],
          ["team_a", "team_b"],
        ]),
        db.query(upsert, [
          [ids.b, fresh2],
          ["team_b", "team_a"],
        ]),
      ]);
      for (const result of results) if (result.status === "rejected") failures.push(String(result.reason));
    }
    expect(failures).toEqual([]);
    for (const team of ["team_a", "team_b"]) {
      const now = await state(team);
      expect(now?.item_count).toBe(now?.actual);
    }
  });

  it("refuses to rename a team's id, naming the rule, and keeps its counts", async () => {
    const before = await state("team_b");
    await expect(db.query("UPDATE teams SET id = 'team_b2' WHERE id = 'team_b'")).rejects.toThrow(
      /team ids are immutable: team 'team_b' cannot be renamed to 'team_b2'/,
    );
    expect(await state("team_b")).toEqual(before);
  });

  it("applies counts at commit: item_count equals count(*) in every snapshot, rolled back writes count nothing", async () => {
    const client = await db.connect();
    try {
      await client.query("BEGIN");
      await insertEvents(client, "team_a", 5);
      await client.query("DELETE FROM events WHERE id IN (SELECT id FROM events WHERE team_id = 'team_b' LIMIT 3)");
      await client.query("ROLLBACK");
      await client.query("BEGIN");
      await client.query("SAVEPOINT s");
      await insertEvents(client, "team_a", 4);
      await client.query("ROLLBACK TO SAVEPOINT s");
      await insertEvents(client, "team_a", 2);
      await client.query(
        "UPDATE events SET team_id = 'team_c' WHERE id IN (SELECT id FROM events WHERE team_id = 'team_a' LIMIT 3)",
      );
      await client.query("COMMIT");
      for (const team of ["team_a", "team_b", "team_c"]) {
        const now = await state(team);
        expect({ team, count: now?.item_count }).toEqual({ team, count: now?.actual });
      }
      const { rows } = await db.query("SELECT 1 FROM team_list_pending");
      expect(rows).toEqual([]);
    } finally {
      client.release();
    }
  });
});
