import { Pool } from "pg";
import { createTestDatabase } from "../testing";
import { type ChangePosition, changeFeedSql, changeFeedValues, currentChangePosition, readChanges } from "./changes";
import { EVENTS_LIST } from "./events.list";

/**
 * The feed since an old position costs what it does since a new one (issue 44 item 5): 2,000
 * one-row commits (updates, deletes and inserts again, two account renames) after position P_old;
 * the first page since P_old reads about as many buffers as the first page since a position 100
 * commits back (it walked every commit since P_old, three times: 25,000+ buffers against 300), and
 * the changes since P_old applied to the list as it was at P_old give plain SQL of the list now.
 */
const TEAM = "team_depth";
const ITEMS = 200;
const COMMITS = 2_000;

/** id -> "name|account name", as plain SQL reads the team's events now. */
async function plain(db: Pool): Promise<Map<string, string>> {
  const { rows } = await db.query<{ id: string; shown: string }>(
    `SELECT e.id, e.name || '|' || a.name AS shown FROM events e JOIN accounts a ON a.id = e.account_id WHERE e.team_id = $1`,
    [TEAM],
  );
  return new Map(rows.map((row) => [row.id, row.shown]));
}

async function firstPageBuffers(db: Pool, position: ChangePosition): Promise<number> {
  const { rows } = await db.query<{ "QUERY PLAN": [{ Plan: Record<string, number> }] }>(
    `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${changeFeedSql(EVENTS_LIST)}`,
    changeFeedValues(TEAM, position, 100),
  );
  const plan = rows[0]?.["QUERY PLAN"][0].Plan;
  return (plan?.["Shared Hit Blocks"] ?? 0) + (plan?.["Shared Read Blocks"] ?? 0);
}

describe("change feed since an old position (PostgreSQL)", () => {
  let db: Pool;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const database = await createTestDatabase("change_feed_depth");
    drop = () => database.drop();
    db = new Pool({ connectionString: database.url, max: 2 });
    db.on("error", () => undefined);
    await db.query(
      `INSERT INTO accounts (id, slug, name, partner) VALUES ('acc_d1', 'd1', 'D1', false), ('acc_d2', 'd2', 'D2', true)`,
    );
    await db.query(`INSERT INTO teams (id, name) VALUES ($1, 'Depth')`, [TEAM]);
    await db.query(
      `INSERT INTO events (id, team_id, account_id, slug, name, duration_seconds, scheduled_at, offer_replay_purchase,
                           price_in_cents, currency)
       SELECT 'evd_' || n, $1, CASE WHEN n % 2 = 0 THEN 'acc_d1' ELSE 'acc_d2' END, 'evd-' || n, 'Event ' || n, 60,
              '2026-03-01T10:00:00Z'::timestamptz - n * interval '1 minute', false, 1250, 'EUR'
         FROM generate_series(1, $2::int) AS n`,
      [TEAM, ITEMS],
    );
  }, 120_000);

  afterAll(async () => {
    await db?.end();
    await drop?.();
  });

  it("reads the first page since 2,000 commits back with the buffers of one 100 commits back, and equals plain SQL", async () => {
    const old = await currentChangePosition(db, { list: "events", teamId: TEAM });
    const atOld = await plain(db);
    // One transaction per iteration (COMMIT inside DO): an update of an item chosen by a stride, a
    // delete every 37th (the item comes back 5 commits later), an account rename every 997th.
    const commits = (from: number, to: number) =>
      db.query(`DO $$
        DECLARE k int;
        BEGIN
          FOR i IN ${from}..${to} LOOP
            k := 1 + (i * 37) % ${ITEMS};
            IF i % 997 = 0 THEN
              UPDATE accounts SET name = 'D1 ' || i WHERE id = 'acc_d1';
            ELSIF i % 37 = 0 THEN
              DELETE FROM events WHERE id = 'evd_' || k;
            ELSIF i % 37 = 5 THEN
              INSERT INTO events (id, team_id, account_id, slug, name, duration_seconds, scheduled_at,
                                  offer_replay_purchase, price_in_cents, currency)
              VALUES ('evd_' || (1 + ((i - 5) * 37) % ${ITEMS}), '${TEAM}', 'acc_d2', 'evd-back-' || i, 'Back ' || i, 60,
                      '2026-04-01T10:00:00Z', false, 990, 'EUR')
              ON CONFLICT (id) DO NOTHING;
            ELSE
              UPDATE events SET name = 'Event ' || k || ' at ' || i WHERE id = 'evd_' || k;
            END IF;
            COMMIT;
          END LOOP;
        END $$`);
    await commits(1, COMMITS - 100);
    const recent = await currentChangePosition(db, { list: "events", teamId: TEAM });
    await commits(COMMITS - 99, COMMITS);
    await db.query("ANALYZE");

    const [deep, shallow] = [await firstPageBuffers(db, old), await firstPageBuffers(db, recent)];
    expect(shallow).toBeGreaterThan(0);
    expect(deep).toBeLessThanOrEqual(2 * shallow + 100);

    // The list as it was at the old position, with every change since applied, is the list now.
    const copy = new Map(atOld);
    let position = old;
    for (let page = 0; ; page++) {
      expect(page).toBeLessThan(100);
      const read = await readChanges(db, EVENTS_LIST, TEAM, position, 100);
      for (const change of read.changes) {
        if (change.op === "upsert") copy.set(change.id, `${change.item.name}|${change.item.account.name}`);
        else copy.delete(change.id);
      }
      position = read.next;
      if (!read.hasMore) break;
    }
    expect(new Map([...copy].sort())).toEqual(new Map([...(await plain(db))].sort()));
  }, 300_000);
});
