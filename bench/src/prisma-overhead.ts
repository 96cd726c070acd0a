import { prismaClientOver } from "@community/db";
import { Pool, type QueryResult } from "pg";
import { cpuPerCall, option, spread } from "./cpu-per-call";

/**
 * The Prisma client's own CPU per raw query, with no I/O: the client and its pg driver adapter
 * over a pool that answers every statement at once with canned rows (the columns of an events
 * page). What it measures is what Prisma adds to a statement on top of node-postgres's protocol
 * work, free of the network and the database, so that a change to the client (its patch) can be
 * measured alone, interleaved against another build.
 *
 *   node bench/dist/prisma-overhead.js [--queries=20000] [--rounds=7] [--rows=1]
 */

const COLUMNS = ["id", "title", "starts_at", "price_minor", "currency", "status"];
// text, except starts_at (timestamptz, 1184), which the adapter turns into its own date format.
const FIELDS = COLUMNS.map((name) => ({ name, dataTypeID: name === "starts_at" ? 1184 : 25 }));

/** A pool whose every statement succeeds at once with `rows` rows of an events page. */
class AnsweringPool extends Pool {
  private readonly result: Pick<QueryResult<unknown[]>, "command" | "rowCount" | "rows" | "fields">;

  constructor(rows: number) {
    super({ max: 1 });
    this.result = {
      command: "SELECT",
      rowCount: rows,
      rows: Array.from({ length: rows }, (_, i) => [
        String(i),
        `Event ${i}`,
        "2026-01-01 10:00:00+00",
        "1200",
        "EUR",
        "published",
      ]),
      fields: FIELDS as QueryResult["fields"],
    };
  }

  // biome-ignore lint/suspicious/noExplicitAny: pg's query has a dozen overloads; this answers the adapter's form.
  override query(): any {
    return Promise.resolve(this.result);
  }
}

// A list statement's size: the page reads are 2-3 KB of SQL.
const SQL =
  `SELECT ${COLUMNS.join(", ")} FROM events WHERE team_id = $1 AND starts_at >= $2 ORDER BY starts_at, id LIMIT $3 `.padEnd(
    2_500,
    "-- as long as a list statement ",
  );

async function main(): Promise<void> {
  const queries = option("queries", 20_000);
  const rounds = option("rounds", 7);
  const rows = option("rows", 1);
  const prisma = prismaClientOver(new AnsweringPool(rows));
  const from = new Date("2026-01-01T00:00:00.000Z");
  const query = () => prisma.$queryRawUnsafe(SQL, "team-1", from, 100);
  for (let i = 0; i < 3_000; i += 1) await query();
  const perQuery: number[] = [];
  for (let round = 0; round < rounds; round += 1) perQuery.push(await cpuPerCall(queries, query));
  console.log(
    `Prisma per raw query, ${rows} row(s), no I/O: ${spread(perQuery, 1)} µs CPU, ${rounds} rounds of ${queries}`,
  );
  await prisma.$disconnect();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
