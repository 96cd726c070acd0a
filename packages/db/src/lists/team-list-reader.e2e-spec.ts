import { createDatabase, type Database } from "../client";
import { createTestDatabase, seededRandom, type TestDatabase } from "../testing";
import { EVENTS_LIST } from "./events.list";
import { GUIDES_LIST } from "./guides.list";
import type { Queryable } from "./team-list";
import { boundariesSql, SEEK_MIN_OFFSET, TeamListReader } from "./team-list-reader";

const TEAM = "team_a";
const OTHER = "team_b";
const SIZE = 3_000;
const BASE = Date.UTC(2026, 0, 1) / 1000;

// Deep pages read through boundary seeks must equal the offset order, whatever the writes in
// between; the boundaries are repaired over the changed range only, never read again in full.
describe(`${TeamListReader.name} boundaries under writes`, () => {
  let testDb: TestDatabase;
  let db: Database;
  const statements: string[] = [];
  let recording: Queryable;
  let next = 0;

  const insertEvents = async (team: string, times: number[]) => {
    const ids = times.map(() => `ev_${String(next++).padStart(6, "0")}`);
    await db.pool.query(
      `INSERT INTO events (id, team_id, account_id, slug, name, duration_seconds, scheduled_at, offer_replay_purchase,
                           price_in_cents, currency)
       SELECT f.id, $2, 'acc_1', f.id, f.id, 60, to_timestamp(f.at), false, 0, 'USD'
         FROM unnest($1::text[], $3::float8[]) AS f(id, at)`,
      [ids, team, times],
    );
    return ids;
  };
  const idsOf = async (list: "events" | "guides", team: string): Promise<string[]> => {
    const key = list === "events" ? EVENTS_LIST.sortKey : GUIDES_LIST.sortKey;
    const { rows } = await db.pool.query<{ id: string }>(
      `SELECT t.id FROM ${list} t WHERE t.team_id = $1 ORDER BY ${key} DESC, t.id`,
      [team],
    );
    return rows.map((r) => r.id);
  };
  const fullReads = (list: "events" | "guides") =>
    statements.filter((s) => s === boundariesSql(list === "events" ? EVENTS_LIST : GUIDES_LIST)).length;

  /** Reads pages at `offsets` and compares them with the offset order; all must have used a seek. */
  async function expectPagesMatch(
    reader: { read: TeamListReader<{ id: string }, { id: string }>["read"] },
    list: "events" | "guides",
    offsets: number[],
  ) {
    const expected = await idsOf(list, TEAM);
    for (const offset of offsets) {
      const before = statements.length;
      const page = await reader.read({ teamId: TEAM, offset, limit: 25 });
      expect({ offset, ids: page.items.map((item) => item.id) }).toEqual({
        offset,
        ids: expected.slice(offset, offset + 25),
      });
      expect(page.total).toBe(expected.length);
      // The last statement is the page: a seek (with the boundary's version as $7), not the offset walk.
      if (offset < expected.length) expect(statements.slice(before).at(-1)).toContain("$7");
    }
  }

  beforeAll(async () => {
    testDb = await createTestDatabase("list_reader_boundaries");
    db = createDatabase({ url: testDb.url, poolMax: 2 });
    recording = {
      query: (text, values) => {
        statements.push(text);
        return db.pool.query(text, values);
      },
    };
    await db.pool.query(`INSERT INTO accounts (id, slug, name, partner) VALUES ('acc_1', 'one', 'One', false)`);
    await db.pool.query(`INSERT INTO teams (id, name) VALUES ($1, 'A'), ($2, 'B')`, [TEAM, OTHER]);
    // Three items per instant: ties on the sort key, broken by id.
    await insertEvents(
      TEAM,
      Array.from({ length: SIZE }, (_, i) => BASE - Math.floor(i / 3) * 60),
    );
    await insertEvents(
      OTHER,
      Array.from({ length: 200 }, (_, i) => BASE - i * 90),
    );
  });

  afterAll(async () => {
    await db?.close();
    await testDb?.drop();
  });

  it("keeps seeks equal to the offset order through inserts, deletes, moves and reschedules", async () => {
    const reader = new TeamListReader(recording, EVENTS_LIST);
    const next = seededRandom(20261123);
    const offsets = () => [
      SEEK_MIN_OFFSET,
      ...Array.from({ length: 6 }, () => SEEK_MIN_OFFSET + Math.floor(next() * (SIZE - SEEK_MIN_OFFSET))),
    ];
    await expectPagesMatch(reader, "events", offsets());
    expect(fullReads("events")).toBe(1);

    const someIds = async (team: string, n: number) => {
      const ids = await idsOf("events", team);
      return Array.from({ length: n }, () => ids[Math.floor(next() * ids.length)] as string);
    };
    const writes: Array<[string, () => Promise<unknown>]> = [
      ["insert one before every item", () => insertEvents(TEAM, [BASE + 3_600])],
      ["insert one after every item", () => insertEvents(TEAM, [BASE - 10_000_000])],
      [
        "insert forty in the middle, some on existing keys",
        () =>
          insertEvents(
            TEAM,
            Array.from({ length: 40 }, () => BASE - Math.floor(next() * 1_000) * 60),
          ),
      ],
      [
        "delete thirty anywhere",
        async () => db.pool.query("DELETE FROM events WHERE id = ANY($1)", [await someIds(TEAM, 30)]),
      ],
      [
        "move twenty to the other team",
        async () =>
          db.pool.query("UPDATE events SET team_id = $2 WHERE id = ANY($1)", [await someIds(TEAM, 20), OTHER]),
      ],
      [
        "move twenty in from the other team",
        async () =>
          db.pool.query("UPDATE events SET team_id = $2 WHERE id = ANY($1)", [await someIds(OTHER, 20), TEAM]),
      ],
      [
        "reschedule ten",
        async () =>
          db.pool.query("UPDATE events SET scheduled_at = scheduled_at - interval '7 hours' WHERE id = ANY($1)", [
            await someIds(TEAM, 10),
          ]),
      ],
      ["rename the account (no item moves)", () => db.pool.query("UPDATE accounts SET name = name || '!'")],
    ];
    for (let round = 0; round < 3; round++) {
      for (const [what, write] of writes) {
        await write();
        const spansBefore = statements.filter((s) => s.startsWith("WITH span AS")).length;
        try {
          await expectPagesMatch(reader, "events", offsets());
        } catch (error) {
          throw new Error(`after "${what}" (round ${round + 1}): ${error instanceof Error ? error.message : error}`);
        }
        const spans = statements.filter((s) => s.startsWith("WITH span AS")).length - spansBefore;
        // A rename re-reads nothing; every other write re-reads its span once.
        expect({ what, spans }).toEqual({ what, spans: what.startsWith("rename") ? 0 : 1 });
      }
    }
    // Twenty-four writes later, the boundaries were never read in full again.
    expect(fullReads("events")).toBe(1);
  });

  it("repairs the guides list too, where drafts sort first on an infinite key", async () => {
    await db.pool.query(
      `INSERT INTO guides (id, team_id, account_id, slug, name, published_at, price_in_cents, currency)
       SELECT 'gd_' || lpad(i::text, 5, '0'), $1, 'acc_1', 'g' || i, 'G',
              CASE WHEN i % 10 = 0 THEN NULL ELSE to_timestamp($2 - (i / 3) * 60) END, 0, 'EUR'
         FROM generate_series(1, $3) i`,
      [TEAM, BASE, SIZE],
    );
    const reader = new TeamListReader(recording, GUIDES_LIST);
    const offsets = [SEEK_MIN_OFFSET, 1_234, 2_000, 2_990];
    await expectPagesMatch(reader, "guides", offsets);

    // Publish five drafts (they leave the front), unpublish five (they join it), delete a draft.
    await db.pool.query(
      "UPDATE guides SET published_at = to_timestamp($1) WHERE id IN ('gd_00010', 'gd_00020', 'gd_00030', 'gd_00040', 'gd_00050')",
      [BASE - 50_000],
    );
    await expectPagesMatch(reader, "guides", offsets);
    await db.pool.query(
      "UPDATE guides SET published_at = NULL WHERE id IN ('gd_01001', 'gd_01502', 'gd_02003', 'gd_02504', 'gd_02995')",
    );
    await expectPagesMatch(reader, "guides", offsets);
    await db.pool.query("DELETE FROM guides WHERE id = 'gd_00100'");
    await expectPagesMatch(reader, "guides", offsets);
    expect(fullReads("guides")).toBe(1);
  });

  it("reads a list again from end to end once its team was deleted and created again", async () => {
    const reader = new TeamListReader(recording, EVENTS_LIST);
    await insertEvents(
      OTHER,
      Array.from({ length: 1_500 }, (_, i) => BASE - i * 30),
    );
    await reader.read({ teamId: OTHER, offset: SEEK_MIN_OFFSET, limit: 1 });
    // Deleting the team drops its stats and its change log; the new items sort after all old ones.
    await db.pool.query("DELETE FROM teams WHERE id = $1", [OTHER]);
    await db.pool.query("INSERT INTO teams (id, name) VALUES ($1, 'B again')", [OTHER]);
    await insertEvents(
      OTHER,
      Array.from({ length: 1_200 }, (_, i) => BASE - 1_000_000 - i),
    );
    const before = statements.length;

    const page = await reader.read({ teamId: OTHER, offset: SEEK_MIN_OFFSET + 3, limit: 5 });

    expect(page.items.map((item) => item.id)).toEqual((await idsOf("events", OTHER)).slice(1_003, 1_008));
    // The held boundaries name a state the database no longer holds (the team's commit log went
    // with it): they are read again in full, not repaired.
    const after = statements.slice(before);
    expect(after.filter((s) => s.startsWith("WITH span AS"))).toEqual([]);
    expect(after.filter((s) => s === boundariesSql(EVENTS_LIST))).toHaveLength(1);
  });
});
