import type { Pool, QueryResultRow } from "pg";
import type { Queryable, StatementResult } from "./lists/team-list";
import { againOnStalePlan, type StatementNames } from "./statement-names";

/**
 * Statements sent on the pool beneath Prisma's adapter through node-postgres, named as the adapter
 * names them (the same StatementNames, so a connection holds one prepared statement per text
 * whichever way it came). The request path's one way around Prisma: the token lookup, which
 * every request pays, cached page or not, costs 2x the CPU through Prisma 7's raw query
 * (docs/decisions.md, "The token lookup on the pool").
 *
 * A statement whose plan went stale (a column's type changed: SQLSTATE 0A000) renewed its names
 * on the way (the pool's WatchedClient) and is sent once more under its new name, as
 * PrismaStatements does.
 */
export class PoolStatements implements Queryable {
  constructor(
    private readonly pool: Pool,
    private readonly names: StatementNames | undefined,
  ) {}

  query<Row extends QueryResultRow>(text: string, values: unknown[]): Promise<StatementResult<Row>> {
    // Named anew on the second try: the stale plan renewed the names.
    return againOnStalePlan(() => this.pool.query<Row>(this.named(text, values)));
  }

  private named(text: string, values: unknown[]): { name?: string; text: string; values: unknown[] } {
    const name = this.names?.nameOf(text, values.length) ?? "";
    return name === "" ? { text, values } : { name, text, values };
  }
}
