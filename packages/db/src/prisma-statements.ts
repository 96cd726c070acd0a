import type { PrismaClient } from "./generated/prisma/client";
import type { Queryable, StatementResult } from "./lists/team-list";
import { againOnStalePlan } from "./statement-names";

/** What Prisma keeps of a driver error (meta.driverAdapterError.cause of a P2010). */
interface DriverErrorCause {
  kind?: string;
  originalCode?: string;
  originalMessage?: string;
  code?: string;
  message?: string;
}

/**
 * The list statements (declared beside their row types in `@community/db/lists`) sent through the
 * Prisma client's raw queries (`$queryRawUnsafe`, one statement each, parameters bound, never
 * interpolated), over the driver adapter, which names them (statementNames) for the pool beneath
 * it. Since Prisma 7.3 a raw query skips the query compiler.
 *
 * Rows come back as Prisma types them: `int8` as bigint, `numeric` as a number or Decimal,
 * timestamps as Date. The statements select what the mappers expect (texts, float8 counts), and
 * the mappers turn any integer type into a number (`item-columns.ts`), so a widened column does
 * not change the wire type.
 *
 * A failed statement is rethrown with the SQLSTATE or socket code of the driver error as `code`
 * (Prisma reports it as P2010 and keeps the driver's code in `meta`): the callers decide by it
 * (a replica's recovery conflict, a query cancelled by the statement timeout, an outage).
 */
export class PrismaStatements implements Queryable {
  constructor(private readonly prisma: PrismaClient) {}

  async query<Row>(text: string, values: unknown[]): Promise<StatementResult<Row>> {
    // A column's type changed under a named statement: its names were renewed, and it is sent again.
    const rows = await againOnStalePlan(() => this.prisma.$queryRawUnsafe<Row[]>(text, ...values), driverError);
    return { rows };
  }
}

const STATEMENTS = new WeakMap<PrismaClient, PrismaStatements>();

/** The raw statements of `prisma` (`database.prisma`, or `database.prismaReads` for the list reads), one object per client. */
export function prismaStatements(prisma: PrismaClient): PrismaStatements {
  let statements = STATEMENTS.get(prisma);
  if (statements === undefined) {
    statements = new PrismaStatements(prisma);
    STATEMENTS.set(prisma, statements);
  }
  return statements;
}

/**
 * The socket errors that the driver adapter reports by kind alone (it drops the error's code):
 * the code of the error it maps to each kind.
 */
const SOCKET_KINDS: Record<string, string> = {
  DatabaseNotReachable: "ECONNREFUSED",
  ConnectionClosed: "ECONNRESET",
  SocketTimeout: "ETIMEDOUT",
};

/** A Prisma error that wraps a driver error, as an Error with the driver's code; any other error as it is. */
export function driverError(error: unknown): unknown {
  const meta = (error as { meta?: { driverAdapterError?: { cause?: DriverErrorCause } } }).meta;
  const cause = meta?.driverAdapterError?.cause;
  const code = cause?.originalCode ?? cause?.code ?? (cause?.kind === undefined ? undefined : SOCKET_KINDS[cause.kind]);
  if (cause === undefined || typeof code !== "string") return error;
  const message = cause.originalMessage ?? cause.message ?? (error as Error).message;
  return Object.assign(new Error(message, { cause: error }), { code });
}
