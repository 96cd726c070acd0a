import { createDatabase } from "@community/db";
import { createTestDatabase } from "@community/db/testing";
import type { FixtureEvent } from "@community/domain";
import { copyRows, EVENTS_STAGING, loadFixture } from "@community/fixtures";
import { baseFixture } from "./dataset";

/**
 * The floor of a bulk load: a plain `COPY events FROM STDIN` of the same rows (encoded as the
 * loader encodes them) into a fresh copy of the migrated schema, with its indexes, constraints
 * and team_list_stats triggers, in one transaction. No validation, no staging, no upsert: what
 * PostgreSQL needs to take the rows at all. Returns the seconds of the COPY and its COMMIT.
 */
export async function copyFloorSeconds(events: readonly FixtureEvent[]): Promise<number> {
  const database = await createTestDatabase("bench_copy_floor");
  const db = createDatabase({ url: database.url, poolMax: 1, statementTimeoutMs: 30 * 60_000 });
  try {
    await loadFixture(db, baseFixture());
    const client = await db.pool.connect();
    try {
      const started = performance.now();
      await client.query("BEGIN");
      await copyRows(client, "events", EVENTS_STAGING.columns, events, EVENTS_STAGING.row, () => undefined);
      await client.query("COMMIT");
      return (performance.now() - started) / 1000;
    } finally {
      client.release();
    }
  } finally {
    await db.close();
    await database.drop();
  }
}
