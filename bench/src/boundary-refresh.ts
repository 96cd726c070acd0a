import { createDatabase } from "@community/db";
import { EVENTS_LIST, TeamListReader } from "@community/db/lists";
import { createTestDatabase } from "@community/db/testing";
import { runMain } from "./run-main";

/**
 * What a write costs the page-boundary cache of a team of N events: the wall time of a deep page
 * read that finds the list changed and brings its boundaries up to date. "full" is a reader with
 * no boundaries yet (what every write cost before the repair: a re-read of the whole team);
 * "repair" is the same reader after the write. Usage: node bench/dist/boundary-refresh.js [N]
 * (default 1,000,000).
 */
async function main(): Promise<void> {
  const n = Number((process.argv[2] ?? "1000000").replace(/_/g, ""));
  if (!Number.isSafeInteger(n) || n < 2_000) throw new Error(`N must be an integer of at least 2,000, got ${n}`);
  const database = await createTestDatabase("bench_boundaries");
  const db = createDatabase({ url: database.url, poolMax: 2, statementTimeoutMs: 10 * 60_000 });
  const base = Date.UTC(2027, 0, 1) / 1000;
  try {
    await db.pool.query("INSERT INTO accounts (id, slug, name, partner) VALUES ('acc', 'acc', 'Acc', false)");
    await db.pool.query("INSERT INTO teams (id, name) VALUES ('team', 'Team')");
    await db.pool.query(
      `INSERT INTO events (id, team_id, account_id, slug, name, duration_seconds, scheduled_at, offer_replay_purchase,
                           price_in_cents, currency)
       SELECT 'ev_' || lpad(i::text, 8, '0'), 'team', 'acc', 'e' || i, 'E', 60, to_timestamp($1 - (i / 3) * 60), false, 0, 'USD'
         FROM generate_series(1, $2) i`,
      [base, n],
    );
    await db.pool.query("VACUUM ANALYZE events");
    const reader = new TeamListReader(db.pool, EVENTS_LIST);
    const deep = Math.floor(n / 2);
    const timed = async (what: string, read: TeamListReader<{ id: string }, unknown>) => {
      const started = performance.now();
      await read.read({ teamId: "team", offset: deep, limit: 100 });
      const ms = performance.now() - started;
      process.stdout.write(`${what}: ${ms.toFixed(1)} ms\n`);
      return ms;
    };
    await timed(`N=${n.toLocaleString("en-US")}, first deep page (full boundary read)`, reader);
    await timed("the same page again (boundaries current)", reader);
    const writes: Array<[string, string]> = [
      [
        "insert one event before every other",
        `INSERT INTO events (id, team_id, account_id, slug, name, duration_seconds, scheduled_at, offer_replay_purchase, price_in_cents, currency)
         VALUES ('ev_new_top', 'team', 'acc', 'new-top', 'E', 60, to_timestamp(${base + 3600}), false, 0, 'USD')`,
      ],
      [
        "insert 100 events in the middle",
        `INSERT INTO events (id, team_id, account_id, slug, name, duration_seconds, scheduled_at, offer_replay_purchase, price_in_cents, currency)
         SELECT 'ev_mid_' || i, 'team', 'acc', 'mid-' || i, 'E', 60, to_timestamp(${base} - ${Math.floor(n / 6) * 60} - i), false, 0, 'USD'
           FROM generate_series(1, 100) i`,
      ],
      ["delete one event near the end", `DELETE FROM events WHERE id = 'ev_${String(n - 10).padStart(8, "0")}'`],
      ["rename the account", "UPDATE accounts SET name = name || '!'"],
    ];
    for (const [what, sql] of writes) {
      await db.pool.query(sql);
      const repair = await timed(`after "${what}": repair`, reader);
      const full = await timed(
        `after "${what}": full re-read (a reader with no boundaries)`,
        new TeamListReader(db.pool, EVENTS_LIST),
      );
      process.stdout.write(`  repair / full: ${(repair / full).toFixed(3)}\n`);
    }
  } finally {
    await db.close();
    await database.drop();
  }
}

runMain("boundary-refresh", main);
