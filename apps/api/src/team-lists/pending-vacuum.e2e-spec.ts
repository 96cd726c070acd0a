import { migrateDeploy } from "@community/db";
import { SqlSession } from "@community/db/testing";
import { type ServerHome, serverHome, startCluster, urlOf } from "../testing/private-cluster";

/**
 * team_list_pending holds a transaction's rows until its COMMIT deletes them: every commit that
 * writes a list leaves two or three dead rows behind, and only vacuum takes them away. With
 * autovacuum off the table held 2.9 MB after this test's 10,000 commits, and 4.5 MB after 20,000
 * (docs/database.md, "Change tracking"). On a cluster of the test's own with autovacuum on, the
 * server's default, and the table's settings from the migrations, it stays bounded instead.
 *
 * The cluster's autovacuum wakes every second instead of every minute: the test makes in seconds
 * the commits a server makes in hours, and a launcher asleep for the whole run would measure nothing.
 */
const COMMITS = 10_000;
const PER_ROUND_TRIP = 250;
/** A third of what the table held after the same commits without autovacuum; it peaks at 0.2-0.5 MB. */
const BOUND_BYTES = 1024 * 1024;

type PendingStats = { bytes: number; dead: number; vacuums: number };

describe("team_list_pending under autovacuum", () => {
  let home: ServerHome;
  let db: SqlSession;
  /** The table's autovacuum_vacuum_threshold, as the migrations set it. */
  let threshold: number;

  beforeAll(async () => {
    home = serverHome("community-vacuum-");
    const port = await startCluster(
      home,
      "data",
      ["autovacuum = on", "autovacuum_naptime = 1s", "synchronous_commit = off"],
      Date.now() + 60_000,
    );
    await migrateDeploy(urlOf(port), { quiet: true });
    db = await SqlSession.open(urlOf(port));
    const { rows } = await db.query<{ threshold: string }>(
      `SELECT option_value AS threshold
         FROM pg_class, pg_options_to_table(reloptions)
        WHERE oid = 'team_list_pending'::regclass AND option_name = 'autovacuum_vacuum_threshold'`,
    );
    threshold = Number(rows[0]?.threshold);
    await db.query("INSERT INTO teams (id, name) VALUES ('team_vacuum', 'Vacuum')");
    await db.query("INSERT INTO accounts (id, slug, name, partner) VALUES ('acc_vacuum', 'vacuum', 'Vacuum', false)");
  }, 120_000);

  afterAll(async () => {
    await db?.close();
    await home?.stop();
  });

  const pending = async (): Promise<PendingStats> => {
    const { rows } = await db.query<{ bytes: string; dead: string; vacuums: string }>(
      `SELECT pg_total_relation_size('team_list_pending') AS bytes, n_dead_tup AS dead, autovacuum_count AS vacuums
         FROM pg_stat_user_tables WHERE relname = 'team_list_pending'`,
    );
    const [row] = rows;
    if (row === undefined) throw new Error("no statistics for team_list_pending");
    return { bytes: Number(row.bytes), dead: Number(row.dead), vacuums: Number(row.vacuums) };
  };

  /** Commit n: even, a new event; odd, a rename of the event before it. */
  const commit = (n: number) =>
    n % 2 === 0
      ? `BEGIN; INSERT INTO events (id, team_id, account_id, slug, name, duration_seconds, scheduled_at,
                                    offer_replay_purchase, price_in_cents, currency)
         VALUES ('ev_${n}', 'team_vacuum', 'acc_vacuum', 'ev-${n}', 'Event ${n}', 60,
                 timestamptz '2026-01-01' + interval '${n} minutes', false, 0, 'USD'); COMMIT;`
      : `BEGIN; UPDATE events SET name = 'Renamed ${n}' WHERE id = 'ev_${n - 1}'; COMMIT;`;

  it("stays under 1 MB over 10,000 one-row commits, and autovacuum reclaims its dead rows", async () => {
    expect(threshold).toBeGreaterThan(0);
    let peak = 0;
    for (let from = 0; from < COMMITS; from += PER_ROUND_TRIP) {
      // One round trip of PER_ROUND_TRIP transactions, each BEGIN ... COMMIT a commit of its own.
      await db.query(Array.from({ length: PER_ROUND_TRIP }, (_, i) => commit(from + i)).join("\n"));
      peak = Math.max(peak, (await pending()).bytes);
    }
    const { rows } = await db.query<{ commits: string }>(
      "SELECT count(*) AS commits FROM team_list_commits WHERE team_id = 'team_vacuum'",
    );
    expect(Number(rows[0]?.commits)).toBeGreaterThanOrEqual(COMMITS);
    expect(peak).toBeLessThan(BOUND_BYTES);

    // The statistics arrive within a second or so of each commit; vacuum follows within a nap.
    let after = await pending();
    for (const deadline = Date.now() + 30_000; after.dead >= threshold && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      after = await pending();
    }
    expect(after.dead).toBeLessThan(threshold);
    // Dozens of vacuums (one per `threshold` dead rows) kept it there, not one at the end.
    expect(after.vacuums).toBeGreaterThanOrEqual(5);
    expect(after.bytes).toBeLessThan(BOUND_BYTES);
  }, 180_000);
});
