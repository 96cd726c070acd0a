import { createHash } from "node:crypto";
import type { QueryResult, QueryResultRow } from "pg";

/** A named statement as pg's query() takes it. */
export interface NamedQuery {
  name: string;
  text: string;
  values: unknown[];
}

/** What PreparedStatements sends through: a pg Pool, or the replica reads with their fallback. */
export interface NamingQueryable {
  query<Row extends QueryResultRow>(text: string, values: unknown[]): Promise<QueryResult<Row>>;
  query<Row extends QueryResultRow>(named: NamedQuery): Promise<QueryResult<Row>>;
}

/** SQLSTATEs of a named statement that the server connection does not hold, or holds already. */
const STATEMENT_NOT_HELD = new Set(["26000", "42P05"]);

/**
 * A pool's queries as named (prepared) statements: each connection parses and plans a statement
 * once and then only binds and executes it. For the short primary-key statements of the hot path
 * (the token lookup: four index probes, 0.04-0.07 ms to execute, 0.4 ms to plan), planning is most
 * of PostgreSQL's work per request.
 *
 * A pooler that hands each transaction to another server connection (PgBouncer before 1.21 in
 * transaction mode) cannot keep a connection's statements: the server then answers "prepared
 * statement does not exist" (26000) or "already exists" (42P05). The first such answer turns
 * naming off for this pool for good and the query is sent again unnamed, so the pooler costs one
 * retried query, never an error. `enabled: false` (DATABASE_PREPARED_STATEMENTS=false) never names.
 */
export class PreparedStatements {
  private readonly names = new Map<string, string>();
  private naming: boolean;

  constructor(
    private readonly pool: NamingQueryable,
    enabled = true,
    /** Told once, when a refusal turned naming off (the api logs it). */
    private readonly onTurnedOff?: (error: Error) => void,
  ) {
    this.naming = enabled;
  }

  /** Whether queries are still sent as named statements (false once a pooler refused them). */
  get active(): boolean {
    return this.naming;
  }

  async query<Row extends QueryResultRow>(text: string, values: unknown[]): Promise<QueryResult<Row>> {
    if (!this.naming) return this.pool.query<Row>(text, values);
    try {
      return await this.pool.query<Row>({ name: this.nameOf(text), text, values });
    } catch (error) {
      if (!STATEMENT_NOT_HELD.has(String((error as { code?: unknown }).code))) throw error;
      if (this.naming) {
        this.naming = false;
        this.onTurnedOff?.(error as Error);
      }
      return this.pool.query<Row>(text, values);
    }
  }

  /** A name per text (a digest: two texts never share one, the same text always has it). */
  private nameOf(text: string): string {
    let name = this.names.get(text);
    if (name === undefined) {
      name = `cts_${createHash("sha256").update(text).digest("hex").slice(0, 24)}`;
      this.names.set(text, name);
    }
    return name;
  }
}
