import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Pool } from "pg";
import { startEmbeddedPostgres } from "../embedded";
import { migrateDeploy } from "../migrations";
import { createTestDatabase } from "../testing";
import {
  type ChangePosition,
  ChangePositionExpiredError,
  ChangePositionUnknownError,
  changeFeedSql,
  changeFeedValues,
  currentChangePosition,
  readChanges,
  sweepChangeLog,
} from "./changes";
import { EVENTS_LIST } from "./events.list";
import { GUIDES_LIST } from "./guides.list";

const TEAM = "team_a";
const OTHER = "team_b";

interface Target {
  name: string;
  open(): Promise<{ pool: Pool; close(): Promise<void> }>;
}

const postgres: Target = {
  name: "PostgreSQL",
  async open() {
    const database = await createTestDatabase("change_feed");
    const pool = new Pool({ connectionString: database.url, max: 4 });
    // Dropping the database ends the pool's idle connections: expected, not a failure.
    pool.on("error", () => undefined);
    return {
      pool,
      close: async () => {
        await pool.end();
        await database.drop();
      },
    };
  },
};

const embedded: Target = {
  name: "the embedded database",
  async open() {
    const dir = await mkdtemp(path.join(tmpdir(), "change-feed-"));
    const server = await startEmbeddedPostgres({ dataDir: dir });
    await migrateDeploy(server.url, { quiet: true });
    // PGlite is one session: one connection at a time.
    const pool = new Pool({ connectionString: server.url, max: 1 });
    return {
      pool,
      close: async () => {
        await pool.end();
        await server.stop();
        await rm(dir, { recursive: true, force: true });
      },
    };
  },
};

/** The position "now" of a team's list (the events of TEAM unless told otherwise). */
const positionNow = (db: Pool, list = "events", teamId = TEAM) => currentChangePosition(db, { list, teamId });

let serial = 0;
async function insertEvent(db: Pool, team: string, id = `ev_${String(serial++).padStart(4, "0")}`, account = "acc_1") {
  await db.query(
    `INSERT INTO events (id, team_id, account_id, slug, name, duration_seconds, scheduled_at, offer_replay_purchase,
                         price_in_cents, currency)
     VALUES ($1::text, $2, $3, $1::text, 'Event ' || $1::text, 60, '2026-03-01T10:00:00Z', false, 1250, 'EUR')`,
    [id, team, account],
  );
  return id;
}

/** Every page of a round and the rounds after it, until a read finds nothing: the entries and the last position. */
async function drain(db: Pool, position: ChangePosition, limit = 100) {
  const changes: { op: string; id: string; name?: string }[] = [];
  let next = position;
  for (;;) {
    const page = await readChanges(db, EVENTS_LIST, TEAM, next, limit);
    for (const change of page.changes) {
      changes.push(change.op === "upsert" ? { op: "upsert", id: change.id, name: change.item.account.name } : change);
    }
    next = page.next;
    if (!page.hasMore && page.changes.length === 0) return { changes, next };
  }
}

describe.each([postgres, embedded])("change feed on $name", (target) => {
  let db: Pool;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ pool: db, close } = await target.open());
    await db.query(
      `INSERT INTO accounts (id, slug, name, partner) VALUES ('acc_1', 'one', 'One', false), ('acc_2', 'two', 'Two', true)`,
    );
    await db.query(`INSERT INTO teams (id, name) VALUES ($1, 'A'), ($2, 'B')`, [TEAM, OTHER]);
  }, 120_000);

  afterAll(async () => {
    await close?.();
  });

  it("gives nothing since now, then each item written after the position, mapped as the list maps it", async () => {
    const start = await positionNow(db);
    expect(await readChanges(db, EVENTS_LIST, TEAM, start, 10)).toMatchObject({ changes: [], hasMore: false });

    const id = await insertEvent(db, TEAM);
    await insertEvent(db, OTHER);
    const page = await readChanges(db, EVENTS_LIST, TEAM, start, 10);
    const { rows } = await db.query(
      `SELECT ${EVENTS_LIST.columns} FROM events t JOIN accounts a ON a.id = t.account_id WHERE t.id = $1`,
      [id],
    );
    expect(page.changes).toEqual([{ op: "upsert", id, item: EVENTS_LIST.toItem(rows[0]) }]);
    expect(page.hasMore).toBe(false);

    // The position returned comes after those writes, and is plain JSON.
    const next = JSON.parse(JSON.stringify(page.next)) as ChangePosition;
    expect((await readChanges(db, EVENTS_LIST, TEAM, next, 10)).changes).toEqual([]);
    // A position can be read again: the same changes.
    expect((await readChanges(db, EVENTS_LIST, TEAM, start, 10)).changes).toEqual(page.changes);
  });

  it("reports deletes, moves out (delete here, upsert there) and id changes, each item once", async () => {
    const kept = await insertEvent(db, TEAM);
    const deleted = await insertEvent(db, TEAM);
    const moved = await insertEvent(db, TEAM);
    const renamed = await insertEvent(db, TEAM);
    const start = await positionNow(db);
    const startThere = await positionNow(db, "events", OTHER);
    const startGuides = await positionNow(db, "guides");

    await db.query("UPDATE events SET name = 'first' WHERE id = $1", [kept]);
    await db.query("UPDATE events SET name = 'second' WHERE id = $1", [kept]);
    await db.query("DELETE FROM events WHERE id = $1", [deleted]);
    await db.query("UPDATE events SET team_id = $2 WHERE id = $1", [moved, OTHER]);
    await db.query("UPDATE events SET id = id || '_new' WHERE id = $1", [renamed]);

    const { changes } = await drain(db, start);
    expect(changes.map(({ op, id }) => ({ op, id }))).toEqual(
      expect.arrayContaining([
        { op: "upsert", id: kept },
        { op: "delete", id: deleted },
        { op: "delete", id: moved },
        { op: "delete", id: renamed },
        { op: "upsert", id: `${renamed}_new` },
      ]),
    );
    expect(changes).toHaveLength(5);
    const there = await readChanges(db, EVENTS_LIST, OTHER, startThere, 10);
    expect(there.changes.map(({ op, id }) => ({ op, id }))).toEqual([{ op: "upsert", id: moved }]);
    // The guides list of the same team saw none of it.
    expect((await readChanges(db, GUIDES_LIST, TEAM, startGuides, 10)).changes).toEqual([]);
  });

  it("reports an item deleted and inserted again as an upsert, and one that came back as it is now", async () => {
    const id = await insertEvent(db, TEAM);
    const start = await positionNow(db);
    await db.query("DELETE FROM events WHERE id = $1", [id]);
    await insertEvent(db, TEAM, id);
    expect((await drain(db, start)).changes).toEqual([{ op: "upsert", id, name: "One" }]);
  });

  it("reports the items of a renamed account as upserts with the new name", async () => {
    const id = await insertEvent(db, TEAM, undefined, "acc_2");
    const start = await positionNow(db);
    await db.query("UPDATE accounts SET name = 'Two renamed' WHERE id = 'acc_2'");
    const { changes } = await drain(db, start);
    expect(changes).toContainEqual({ op: "upsert", id, name: "Two renamed" });
    expect(changes.every((change) => change.op === "upsert" && change.name === "Two renamed")).toBe(true);
  });

  it("pages a round oldest first with has_more, and leaves writes made during the round to the next", async () => {
    const start = await positionNow(db);
    const written: string[] = [];
    for (let i = 0; i < 5; i++) written.push(await insertEvent(db, TEAM));

    const first = await readChanges(db, EVENTS_LIST, TEAM, start, 2);
    expect(first.changes.map((c) => c.id)).toEqual(written.slice(0, 2));
    expect(first.hasMore).toBe(true);
    // Written during the round: after the round's snapshot, so in the next round.
    const late = await insertEvent(db, TEAM);
    await db.query("UPDATE events SET name = 'changed in the round' WHERE id = $1", [written[4]]);

    const rest = await drain(db, first.next, 2);
    expect(rest.changes.map((c) => c.id)).toEqual([written[2], written[3], late, written[4]]);
    expect((await readChanges(db, EVENTS_LIST, TEAM, rest.next, 2)).changes).toEqual([]);
  });

  it("pages the items of one bulk statement by id, each once, and merges item and account changes", async () => {
    const start = await positionNow(db);
    const ids = Array.from({ length: 25 }, (_, i) => `bulk_${String(i).padStart(2, "0")}`);
    await db.query(
      `INSERT INTO events (id, team_id, account_id, slug, name, duration_seconds, scheduled_at, offer_replay_purchase,
                           price_in_cents, currency)
       SELECT id, $2, CASE WHEN id < 'bulk_10' THEN 'acc_1' ELSE 'acc_2' END, id, id, 60, now(), false, 0, 'USD'
         FROM unnest($1::text[]) AS id`,
      [ids, TEAM],
    );
    // In the same window: one item changed again, then the account of the first ten renamed.
    await db.query("UPDATE events SET name = 'again' WHERE id = 'bulk_20'");
    await db.query("UPDATE accounts SET name = 'One renamed' WHERE id = 'acc_1'");
    const { changes } = await drain(db, start, 7);
    expect(changes.map((change) => change.id)).toEqual([
      ...ids.slice(10, 20),
      ...ids.slice(21),
      "bulk_20",
      ...ids.slice(0, 10),
      // acc_1's other items of the team, changed by the rename too
      ...changes.slice(25).map((change) => change.id),
    ]);
    expect(changes.slice(25).every((change) => change.op === "upsert" && change.name === "One renamed")).toBe(true);
    expect(new Set(changes.map((change) => change.id)).size).toBe(changes.length);
  });

  it("expires positions from before a TRUNCATE of the list", async () => {
    await db.query(
      `INSERT INTO guides (id, team_id, account_id, slug, name, published_at, price_in_cents, currency)
       VALUES ('gd_truncated', $1, 'acc_1', 'gd-truncated', 'Truncated', now(), 0, 'USD')`,
      [TEAM],
    );
    const before = await positionNow(db, "guides");
    const eventsBefore = await positionNow(db);
    await db.query("TRUNCATE guides");
    await expect(readChanges(db, GUIDES_LIST, TEAM, before, 10)).rejects.toThrow(ChangePositionExpiredError);
    // The events list was not reset.
    await expect(readChanges(db, EVENTS_LIST, TEAM, eventsBefore, 10)).resolves.toMatchObject({ hasMore: false });
    const after = await positionNow(db, "guides");
    await expect(readChanges(db, GUIDES_LIST, TEAM, after, 10)).resolves.toMatchObject({ changes: [] });
  });

  it("sweeps the log older than the cut-off, keeping every state current since it, and refuses older positions", async () => {
    const before = await positionNow(db, "events", OTHER);
    const id = await insertEvent(db, OTHER);
    await db.query("DELETE FROM events WHERE id = $1", [id]);
    const between = await positionNow(db, "events", OTHER);
    expect(await sweepChangeLog(db, new Date(Date.now() - 3_600_000))).toBe(0);

    // Everything committed before the cut-off: the states before the last are gone, and with them
    // the tombstones they logged; the last state (current since) stays known.
    await sweepChangeLog(db, new Date(Date.now() + 60_000));
    const { rows } = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM team_list_tombstones WHERE team_id = $1 AND item_id = $2",
      [OTHER, id],
    );
    expect(rows[0]?.n).toBe(0);
    await expect(readChanges(db, EVENTS_LIST, OTHER, before, 10)).rejects.toThrow(ChangePositionUnknownError);
    await expect(readChanges(db, EVENTS_LIST, OTHER, between, 10)).resolves.toMatchObject({ changes: [] });
    // A write after the sweep is read from the kept state.
    const later = await insertEvent(db, OTHER);
    expect((await readChanges(db, EVENTS_LIST, OTHER, between, 10)).changes.map((c) => c.id)).toEqual([later]);
  });

  it("refuses a position whose state this database does not hold (lost, or not replayed yet), instead of a gap", async () => {
    const now = await positionNow(db);
    await expect(readChanges(db, EVENTS_LIST, TEAM, now, 10)).resolves.toMatchObject({ changes: [] });
    const [version, stamp] = now.base.split(".") as [string, string];
    // The same version in another history (another stamp), and a version not reached here.
    const otherStamp = { base: `${version}.${(BigInt(stamp) + 1n).toString()}` };
    await expect(readChanges(db, EVENTS_LIST, TEAM, otherStamp, 10)).rejects.toThrow(ChangePositionUnknownError);
    const ahead = { base: `${BigInt(version) + 1000n}.${stamp}` };
    await expect(readChanges(db, EVENTS_LIST, TEAM, ahead, 10)).rejects.toThrow(ChangePositionUnknownError);
  });

  it("refuses every earlier position after team_list_forget_positions(), and reads from the positions after it", async () => {
    const earlier = await positionNow(db);
    await db.query("SELECT team_list_forget_positions()");
    await expect(readChanges(db, EVENTS_LIST, TEAM, earlier, 10)).rejects.toThrow(ChangePositionUnknownError);
    const fresh = await positionNow(db);
    expect(fresh.base).not.toBe(earlier.base);
    const id = await insertEvent(db, TEAM);
    expect((await drain(db, fresh)).changes.map((change) => change.id)).toEqual([id]);
  });

  it("rejects a position of the wrong shape with a typed error", async () => {
    await expect(readChanges(db, EVENTS_LIST, TEAM, { base: "1:2:" }, 10)).rejects.toThrow(/base/);
    await expect(
      readChanges(db, EVENTS_LIST, TEAM, { base: "1.2", after: { version: "1", id: "a" } }, 10),
    ).rejects.toThrow(/after without round/);
  });
});

// Concurrent transactions need a server (the embedded database is one session).
describe("change feed under concurrent transactions on PostgreSQL", () => {
  let db: Pool;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ pool: db, close } = await postgres.open());
    await db.query(`INSERT INTO accounts (id, slug, name, partner) VALUES ('acc_1', 'one', 'One', false)`);
    await db.query(`INSERT INTO teams (id, name) VALUES ($1, 'A'), ($2, 'B')`, [TEAM, OTHER]);
  });

  afterAll(async () => {
    await close?.();
  });

  it("returns a transaction that began before the position and committed after it", async () => {
    const late = await db.connect();
    try {
      await late.query("BEGIN");
      const id = await insertEvent(late as unknown as Pool, TEAM);
      // Later transactions commit first (and take later xids).
      const early = await insertEvent(db, TEAM);
      const position = await positionNow(db);
      expect((await drain(db, position)).changes).toEqual([]);
      await late.query("COMMIT");
      const { changes, next } = await drain(db, position);
      expect(changes).toEqual([{ op: "upsert", id, name: "One" }]);
      expect(changes.map((c) => c.id)).not.toContain(early);
      expect((await drain(db, next)).changes).toEqual([]);
    } finally {
      late.release();
    }
  });

  it("keeps an item changed after the round's snapshot for the next round, never losing it", async () => {
    const start = await positionNow(db);
    const ids = [await insertEvent(db, TEAM), await insertEvent(db, TEAM), await insertEvent(db, TEAM)];
    const first = await readChanges(db, EVENTS_LIST, TEAM, start, 1);
    // A transaction open during the round commits a delete of an item the round has not reached.
    const writer = await db.connect();
    try {
      await writer.query("BEGIN");
      await writer.query("DELETE FROM events WHERE id = $1", [ids[2]]);
      const second = await readChanges(db, EVENTS_LIST, TEAM, first.next, 1);
      await writer.query("COMMIT");
      // The round ends without it (its row is gone, its tombstone is after the round's snapshot),
      // but says that more wait: a client that stops at has_more false must not stop short of it.
      const rest = await readChanges(db, EVENTS_LIST, TEAM, second.next, 1);
      expect(rest).toMatchObject({ changes: [], hasMore: true });
      expect([...first.changes, ...second.changes].map((c) => c.id)).toEqual([ids[0], ids[1]]);
      const after = await readChanges(db, EVENTS_LIST, TEAM, rest.next, 1);
      expect(after).toMatchObject({ changes: [{ op: "delete", id: ids[2] }], hasMore: false });
    } finally {
      writer.release();
    }
  });
});

// A plan is chosen on the statistics of the last ANALYZE. After a load or a restore, the change
// log's tables are analyzed near empty and grow until autovacuum analyzes them again; the feed's
// statement must not depend on that for its shape. Measured in buffers, not in time: with the
// tombstone stream written as a join of tombstones and commits, this page read 457,232 buffers
// (4 s); with the commit looked up per tombstone, 8,732.
describe("change feed on statistics older than the log (PostgreSQL)", () => {
  let db: Pool;
  let close: () => Promise<void>;
  const team = "team_stale";
  const eventId = (n: number) => `evs_${String(n).padStart(4, "0")}`;

  beforeAll(async () => {
    ({ pool: db, close } = await postgres.open());
    await db.query(`INSERT INTO accounts (id, slug, name, partner) VALUES ('acc_1', 'one', 'One', false)`);
    await db.query(`INSERT INTO teams (id, name) VALUES ($1, 'Stale')`, [team]);
    await db.query(
      `INSERT INTO events (id, team_id, account_id, slug, name, duration_seconds, scheduled_at, offer_replay_purchase,
                           price_in_cents, currency)
       SELECT 'evs_' || lpad(n::text, 4, '0'), $1, 'acc_1', 'evs-' || n, 'Event ' || n, 60,
              '2026-03-01T10:00:00Z'::timestamptz - n * interval '1 minute', false, 1250, 'EUR'
         FROM generate_series(1, 400) AS n`,
      [team],
    );
    // Statistics as a load leaves them (no tombstone, one commit), kept so while the log grows.
    await db.query("ANALYZE");
    await db.query("ALTER TABLE team_list_tombstones SET (autovacuum_enabled = false)");
    await db.query("ALTER TABLE team_list_commits SET (autovacuum_enabled = false)");
  }, 120_000);

  afterAll(async () => {
    await close?.();
  });

  it("reads a page of a window of 300 deletes through its indexes, not every tombstone against every later commit", async () => {
    const position = await positionNow(db, "events", team);
    for (let n = 1; n <= 300; n++) {
      await db.query("DELETE FROM events WHERE id = $1", [eventId(n)]);
      if (n % 3 === 0) await db.query("UPDATE events SET name = name || '.' WHERE id = $1", [eventId(400 - n)]);
    }
    const { rows } = await db.query<{ "QUERY PLAN": [{ Plan: Record<string, number> }] }>(
      `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${changeFeedSql(EVENTS_LIST)}`,
      changeFeedValues(team, position, 100),
    );
    const plan = rows[0]?.["QUERY PLAN"][0].Plan;
    const buffers = (plan?.["Shared Hit Blocks"] ?? 0) + (plan?.["Shared Read Blocks"] ?? 0);
    expect(buffers).toBeGreaterThan(0);
    // The same plan reads 8,732 buffers on a quiet server, 44,563 while a transaction with an xid
    // stays open in another database of the cluster, and 10,000-39,000 while other suites run (CI
    // failed a bound of 20,000 so): the deleted rows its index probes visit stay unprunable while
    // any session holds the horizon back. The join this guards against read 457,232.
    expect(buffers).toBeLessThan(100_000);

    // And the page is right: the first 100 changes in commit order, each delete and each update
    // of an item that was not deleted later.
    const expected: string[] = [];
    for (let n = 1; expected.length < 100; n++) {
      expected.push(`delete ${eventId(n)}`);
      if (n % 3 === 0 && expected.length < 100) expected.push(`upsert ${eventId(400 - n)}`);
    }
    const page = await readChanges(db, EVENTS_LIST, team, position, 100);
    expect(page.changes.map((change) => `${change.op} ${change.id}`)).toEqual(expected);
    expect(page.hasMore).toBe(true);
  }, 120_000);
});
