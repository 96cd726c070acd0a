import { createHash } from "node:crypto";
import type { Client, QueryResult } from "pg";

/** SQLSTATEs of a named statement that the server connection does not hold, or holds already. */
const STATEMENT_NOT_HELD = new Set(["26000", "42P05"]);
/** feature_not_supported: "cached plan must not change result type" after a column's type changed. */
const CACHED_PLAN_STALE = "0A000";

/** Most named statements one server connection keeps by default (DATABASE_PREPARED_STATEMENTS_MAX). */
export const DEFAULT_STATEMENTS_PER_CONNECTION = 32;

export interface PreparedStatementsOptions {
  /** false: never name a statement (DATABASE_PREPARED_STATEMENTS=false). */
  enabled?: boolean;
  /** Most named statements a connection keeps; the least recently used one is deallocated past it. */
  perConnection?: number;
  /** Told once, when a pooler's refusal turned naming off (the api logs it). */
  onTurnedOff?: (error: Error) => void;
}

/** The parts of pg's connection that track which named statements the server holds. */
interface ParsedStatements {
  parsedStatements: Record<string, string | undefined>;
  submittedNamedStatements: Record<string, string | undefined>;
}

/** What a pg query config looks like to the naming: Prisma's adapter sends `text`, `values`, `rowMode`, `types`. */
interface QueryConfig {
  text: string;
  values?: unknown[];
  name?: string;
  submit?: unknown;
}

type QueryCallback = (error: Error | null, result?: QueryResult) => void;
type ClientQuery = (this: Client, ...args: unknown[]) => unknown;

/**
 * Statements with parameters as named (prepared) statements: each connection parses and plans a
 * statement once and then only binds and executes it. For the short primary-key statements of the
 * hot path (the token lookup: four index probes, 0.04-0.07 ms to execute, 0.4 ms to plan), planning
 * is most of PostgreSQL's work per request. Named at the connection, below Prisma's driver adapter,
 * so every statement of the pool is served alike whoever sends it.
 *
 * Bounded: a connection keeps at most `perConnection` named statements; a new one past that
 * deallocates the least recently used (`DEALLOCATE`, sent ahead of it on the same connection), so
 * the walk and filter shapes a client can ask for never grow a server backend's memory without
 * bound (at 32, about 6 MB per backend at most, against 29 MB measured for 158 shapes unbounded).
 *
 * A statement whose result type changed under it (a widened column: SQLSTATE 0A000, "cached plan
 * must not change result type") is deallocated and sent again once on the same connection: a
 * schema change costs one more round trip, never an error.
 *
 * A pooler that hands each transaction to another server connection (PgBouncer before 1.21 in
 * transaction mode) cannot keep a connection's statements: the server then answers "prepared
 * statement does not exist" (26000) or "already exists" (42P05). The first such answer turns
 * naming off for this pool for good and the query is sent again unnamed, so the pooler costs one
 * retried query, never an error. That retry is only possible outside a transaction block (inside
 * one, the refusal has aborted the transaction), so a statement sent inside one is never named:
 * transactions are off the hot path (the token lookup and the list reads run none).
 */
export class PreparedStatements {
  private readonly names = new Map<string, string>();
  private naming: boolean;
  readonly perConnection: number;

  constructor(private readonly options: PreparedStatementsOptions = {}) {
    this.naming = options.enabled ?? true;
    this.perConnection = Math.max(1, Math.trunc(options.perConnection ?? DEFAULT_STATEMENTS_PER_CONNECTION));
  }

  /** Whether queries are still sent as named statements (false once a pooler refused them). */
  get active(): boolean {
    return this.naming;
  }

  /**
   * Wraps a pg Client class's `query` (both its callback and promise forms) so that every query
   * config with parameters is sent as a named statement, within this object's rules. Plain-text
   * queries (session settings, `DEALLOCATE`) and submittables (COPY) pass through.
   */
  install(clientClass: { prototype: Client }): void {
    const query = clientClass.prototype.query as unknown as ClientQuery;
    const statements = this;
    clientClass.prototype.query = function namingQuery(this: Client, ...args: unknown[]): unknown {
      const first = args[0];
      if (!statements.naming || !isNameable(first, args[1]) || inTransaction(this)) return query.apply(this, args);
      const values = (Array.isArray(args[1]) ? args[1] : first.values) as unknown[];
      const last = args[args.length - 1];
      const callback = typeof last === "function" ? (last as QueryCallback) : undefined;
      const result = statements.run(this, query, first, values);
      if (callback === undefined) return result;
      result.then(
        (value) => callback(null, value),
        (error: Error) => callback(error),
      );
      return undefined;
    } as Client["query"];
  }

  private async run(client: Client, query: ClientQuery, config: QueryConfig, values: unknown[]): Promise<QueryResult> {
    const name = this.nameOf(config.text);
    const named = { ...config, name, values };
    this.touch(client, query, name);
    try {
      return await send(client, query, named);
    } catch (error) {
      const code = String((error as { code?: unknown }).code);
      if (code === CACHED_PLAN_STALE) {
        await deallocate(client, query, name);
        return await send(client, query, named);
      }
      if (!STATEMENT_NOT_HELD.has(code)) throw error;
      if (this.naming) {
        this.naming = false;
        this.options.onTurnedOff?.(error as Error);
      }
      return await send(client, query, { ...config, values });
    }
  }

  /** Marks `name` as the connection's most recently used, deallocating the least recently used past the bound. */
  private touch(client: Client, query: ClientQuery, name: string): void {
    const held = heldBy(client);
    if (held.delete(name)) {
      held.add(name);
      return;
    }
    if (held.size >= this.perConnection) {
      const oldest = held.values().next().value as string;
      held.delete(oldest);
      // Queued ahead of the new statement on the same connection; a failure costs nothing.
      deallocate(client, query, oldest).catch(() => undefined);
    }
    held.add(name);
  }

  /** A name per text (a digest: two texts never share one, the same text always has it). */
  private nameOf(text: string): string {
    let name = this.names.get(text);
    if (name === undefined) {
      // Bounded like the connections' statements: a forgotten text only costs its digest again.
      if (this.names.size >= this.perConnection * 64) this.names.clear();
      name = `cts_${createHash("sha256").update(text).digest("hex").slice(0, 24)}`;
      this.names.set(text, name);
    }
    return name;
  }
}

/** Whether the connection is inside a transaction block (its last ReadyForQuery said T or E). */
function inTransaction(client: Client): boolean {
  const status = client.getTransactionStatus();
  return status === "T" || status === "E";
}

/**
 * Sends a named query in pg's callback form. pg's promise form sets a closure made inside
 * Client.query on each query object (its `callback`); through this wrapper, on the path of every
 * statement Prisma sends, that kept each statement's rows alive past young-generation collections
 * until the next full one, about 2 MB promoted per collection on pages of 100 (bench/README.md,
 * "Young garbage kept old"). The callback form takes a callback made here, with only what it needs.
 */
function send(client: Client, query: ClientQuery, config: QueryConfig): Promise<QueryResult> {
  return new Promise((resolve, reject) => {
    query.call(client, config, (error: Error | null, result?: QueryResult) =>
      error ? reject(error) : resolve(result as QueryResult),
    );
  });
}

/** A query config with parameters and no name of its own, not a submittable. */
function isNameable(first: unknown, second: unknown): first is QueryConfig {
  if (typeof first !== "object" || first === null) return false;
  const config = first as QueryConfig;
  if (typeof config.text !== "string" || config.name !== undefined || config.submit !== undefined) return false;
  const values = Array.isArray(second) ? second : config.values;
  return Array.isArray(values) && values.length > 0;
}

const HELD = new WeakMap<Client, Set<string>>();

/** The names the connection holds, least recently used first. */
function heldBy(client: Client): Set<string> {
  let held = HELD.get(client);
  if (held === undefined) {
    held = new Set();
    HELD.set(client, held);
  }
  return held;
}

/**
 * Drops `name` from the connection: pg is told it no longer holds it (so that its next use parses
 * it again) and the server is sent `DEALLOCATE`, queued behind what the connection already runs.
 */
function deallocate(client: Client, query: ClientQuery, name: string): Promise<unknown> {
  const connection = (client as unknown as { connection: ParsedStatements }).connection;
  delete connection.parsedStatements[name];
  delete connection.submittedNamedStatements[name];
  return query.call(client, `DEALLOCATE ${name}`) as Promise<unknown>;
}
