import { standaloneClient } from "@community/db";
import { BASE_SECONDS, type MixShape, SPAN_SECONDS } from "./mix-workload";

export interface MixLoadReport {
  teams: number;
  users: number;
  tokens: number;
  events: number;
  guides: number;
  /** Seconds per step: base rows (accounts, teams, users, tokens), events, guides, VACUUM ANALYZE. */
  seconds: { base: number; events: number; guides: number; vacuum: number; total: number };
}

const ACCOUNTS = 200;
const CURRENCIES = "ARRAY['USD','EUR','JPY','BHD','CHF']";

/**
 * An item's place in its team's year: item i of n is (i / n) of the year before the base time,
 * so the newest come first in the list and a week's window holds about n / 52 of them.
 */
const at = (i: string, n: string) => `to_timestamp(${BASE_SECONDS} - floor(${i}::float8 * ${SPAN_SECONDS} / ${n}))`;

/**
 * Loads the mix's data with one `INSERT ... SELECT` per table over generate_series (no row goes
 * through JavaScript), so the statement-level triggers run once per table, then VACUUM ANALYZE as
 * autovacuum eventually would. Items mirror the fixed bench data (dataset.ts): every 11th event
 * canceled, every 3rd completed, every 5th live, one guide in twenty a draft.
 */
export async function loadMixData(url: string, shape: MixShape): Promise<MixLoadReport> {
  const client = standaloneClient({ connectionString: url, application_name: "bench-mix-loader" });
  await client.connect();
  const began = performance.now();
  const seconds = { base: 0, events: 0, guides: 0, vacuum: 0, total: 0 };
  const timed = async (step: keyof typeof seconds, work: () => Promise<unknown>) => {
    const started = performance.now();
    await work();
    seconds[step] += (performance.now() - started) / 1000;
  };
  const ranks = shape.events.map((_, k) => k + 1);
  try {
    await client.query("SET statement_timeout = 0");
    await timed("base", async () => {
      await client.query(
        `INSERT INTO accounts (id, slug, name, partner, profile_image_url, cover_image_url)
         SELECT 'acc_' || i, 'account-' || i, 'Account ' || i, i % 3 = 0,
                CASE WHEN i % 2 = 0 THEN 'https://img.example.com/p/' || i || '.png' END, NULL
           FROM generate_series(0, ${ACCOUNTS - 1}) i`,
      );
      await client.query(`INSERT INTO teams (id, name) SELECT 'mt_' || k, 'Team ' || k FROM unnest($1::int[]) k`, [
        ranks,
      ]);
      await client.query(
        `INSERT INTO users (id, name, team_id)
         SELECT 'mu_' || u, 'User ' || u, 'mt_' || t.k
           FROM unnest($1::int[], $2::int[], $3::int[]) AS t(k, n, first)
          CROSS JOIN LATERAL generate_series(t.first, t.first + t.n - 1) u`,
        [ranks, shape.users, shape.firstUser],
      );
      // The digest the api and the floor look up: SHA-256 of the token's UTF-8 bytes, in hex.
      await client.query(
        `INSERT INTO access_tokens (token_hash, user_id, client_id)
         SELECT encode(sha256(convert_to('mix-token-' || u, 'UTF8')), 'hex'), 'mu_' || u, 'bench-mix'
           FROM generate_series(0, $1::int - 1) u`,
        [shape.totals.users],
      );
    });
    await timed("events", () =>
      client.query(
        `INSERT INTO events (id, team_id, account_id, slug, name, description, cover_url, duration_seconds,
                             scheduled_at, live_at, completed_at, canceled_at, offer_replay_purchase,
                             price_in_cents, currency)
         SELECT 'ev_mt_' || t.k || '_' || i, 'mt_' || t.k, 'acc_' || (i % ${ACCOUNTS}), 'event-' || i, 'Event ' || i,
                CASE WHEN i % 2 = 0 THEN 'Description of event ' || i END,
                CASE WHEN i % 4 = 0 THEN 'https://img.example.com/e/' || i || '.jpg' END,
                1800 + (i % 7) * 600, ${at("i", "t.n")},
                CASE WHEN i % 5 = 0 THEN ${at("i", "t.n")} END,
                CASE WHEN i % 3 = 0 THEN ${at("i", "t.n")} + interval '2 hours' END,
                CASE WHEN i % 11 = 0 THEN ${at("i", "t.n")} END,
                i % 2 = 1, (i * 37) % 10000, (${CURRENCIES})[1 + i % 5]
           FROM unnest($1::int[], $2::int[]) AS t(k, n)
          CROSS JOIN LATERAL generate_series(0, t.n - 1) i`,
        [ranks, shape.events],
      ),
    );
    await timed("guides", () =>
      client.query(
        `INSERT INTO guides (id, team_id, account_id, slug, name, description, cover_url, published_at,
                             price_in_cents, currency)
         SELECT 'gd_mt_' || t.k || '_' || i, 'mt_' || t.k, 'acc_' || (i % ${ACCOUNTS}), 'guide-' || i, 'Guide ' || i,
                CASE WHEN i % 3 <> 0 THEN 'Description of guide ' || i END, NULL,
                CASE WHEN i % 20 <> 0 THEN ${at("i", "t.n")} END,
                (i * 37) % 10000, (${CURRENCIES})[1 + i % 5]
           FROM unnest($1::int[], $2::int[]) AS t(k, n)
          CROSS JOIN LATERAL generate_series(0, t.n - 1) i`,
        [ranks, shape.guides],
      ),
    );
    await timed("vacuum", () => client.query("VACUUM ANALYZE"));
    seconds.total = (performance.now() - began) / 1000;
    const { rows } = await client.query<{ [k: string]: number }>(
      `SELECT (SELECT count(*) FROM teams)::int AS teams, (SELECT count(*) FROM users)::int AS users,
              (SELECT count(*) FROM access_tokens)::int AS tokens, (SELECT count(*) FROM events)::int AS events,
              (SELECT count(*) FROM guides)::int AS guides`,
    );
    const counts = rows[0] as { teams: number; users: number; tokens: number; events: number; guides: number };
    return { ...counts, seconds };
  } finally {
    await client.end();
  }
}
