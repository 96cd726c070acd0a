import { createHash } from "node:crypto";
import type { PrismaPg } from "@prisma/adapter-pg";

/** Most statement texts one database names by default (DATABASE_PREPARED_STATEMENTS_MAX). */
export const DEFAULT_NAMED_STATEMENTS = 32;

/** feature_not_supported: "cached plan must not change result type", after a column's type changed. */
export const CACHED_PLAN_STALE = "0A000";

type StatementNameGenerator = NonNullable<
  NonNullable<ConstructorParameters<typeof PrismaPg>[1]>["statementNameGenerator"]
>;

/**
 * Sends a statement with `send`, and once more when its named statement met a stale plan: its
 * names were renewed meanwhile (StatementNames.renew), so the second try prepares it afresh. Every
 * failure is passed through `failure` (the driver error a Prisma error carries, or the error as it is).
 */
export async function againOnStalePlan<T>(
  send: () => Promise<T>,
  failure: (error: unknown) => unknown = (error) => error,
): Promise<T> {
  try {
    return await send();
  } catch (error) {
    const failed = failure(error);
    if ((failed as { code?: unknown } | null)?.code !== CACHED_PLAN_STALE) throw failed;
  }
  try {
    return await send();
  } catch (error) {
    throw failure(error);
  }
}

/**
 * The names Prisma's pg adapter gives its statements (its `statementNameGenerator` option): a
 * named statement is parsed and planned once per connection, then only bound and executed. For
 * the short primary-key statements of the hot path (the token lookup: four index probes, 0.04-0.07
 * ms to execute, 0.4 ms to plan) planning is most of PostgreSQL's work per request.
 *
 * Bounded: the first `max` distinct texts with parameters are named and every other text is sent
 * unnamed (an empty name, which node-postgres sends as the unnamed statement), so a connection
 * holds at most `max` statements per generation, whatever walk and filter shapes clients ask for
 * (at 32, about 6 MB per backend at most, against 29 MB measured for 158 shapes unbounded). The
 * token lookup and the list statements are the first a server sends, so they are the ones named.
 *
 * A statement whose result type changed under it (a widened column: SQLSTATE 0A000) cannot run
 * again under its name on the connections that prepared it. `renew` then starts a new generation
 * of names, so every connection prepares its statements again (the old ones stay on a connection
 * until it closes); the statement that failed is sent again once by PrismaStatements.
 *
 * A pooler that cannot keep a connection's statements (PgBouncer before 1.21 in transaction
 * mode) needs DATABASE_PREPARED_STATEMENTS=false (docs/decisions.md, "Prisma 7 as published").
 */
export class StatementNames {
  private readonly names = new Map<string, string>();
  private readonly max: number;
  private generation = 0;

  constructor(max = DEFAULT_NAMED_STATEMENTS) {
    this.max = Math.max(1, Math.trunc(max));
  }

  /** Adapter-pg's `statementNameGenerator`. */
  readonly generate: StatementNameGenerator = ({ sql, args }) => this.nameOf(sql, args.length);

  /** The name of a text sent with `parameters` parameters: "" (unnamed) for none, or past `max` texts. */
  nameOf(sql: string, parameters: number): string {
    if (parameters === 0) return "";
    let name = this.names.get(sql);
    if (name === undefined) {
      if (this.names.size >= this.max) return "";
      // A digest of the text: two texts never share a name, the same text always has it.
      name = `cts${this.generation}_${createHash("sha256").update(sql).digest("hex").slice(0, 24)}`;
      this.names.set(sql, name);
    }
    return name;
  }

  /** After `name` met a stale plan: a new generation of names, unless another failure started one already. */
  renew(name: string): void {
    if (!name.startsWith(`cts${this.generation}_`)) return;
    this.generation += 1;
    this.names.clear();
  }
}
