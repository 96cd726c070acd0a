/**
 * Tells whether an error means "the database cannot serve this right now" as opposed to a bug or
 * a bad query, and why. Such errors become 503 with Retry-After; the pool reconnects by itself
 * once the server is back.
 *
 * - `unreachable`: refused or dropped connection, connect timeout, server shutting down;
 * - `circuit-open`: not attempted, the server is known to be down (see CircuitBreaker);
 * - `saturated`: the server answers but is too busy: no free pooled connection in time, a
 *   statement or lock timeout, or a query the server did not answer in time.
 */
export type DatabaseFailure = "unreachable" | "circuit-open" | "saturated";

/** A full pool had no free connection within the connect timeout: the server answers, slowly. */
export class PoolSaturatedError extends Error {
  readonly code = "POOL_SATURATED";

  constructor(cause: Error) {
    super("no free database connection in time: every pooled connection is busy", { cause });
    this.name = "PoolSaturatedError";
  }
}

const CODES: Record<string, DatabaseFailure> = {
  ECONNREFUSED: "unreachable",
  ECONNRESET: "unreachable",
  EPIPE: "unreachable",
  ETIMEDOUT: "unreachable",
  EHOSTUNREACH: "unreachable",
  ENETUNREACH: "unreachable",
  ENOTFOUND: "unreachable",
  EAI_AGAIN: "unreachable",
  // PostgreSQL SQLSTATEs: admin_shutdown, crash_shutdown, cannot_connect_now, connection failures
  "57P01": "unreachable",
  "57P02": "unreachable",
  "57P03": "unreachable",
  "08000": "unreachable",
  "08001": "unreachable",
  "08003": "unreachable",
  "08004": "unreachable",
  "08006": "unreachable",
  // Prisma: can't reach database server, connection timeout, connection closed
  P1001: "unreachable",
  P1002: "unreachable",
  P1017: "unreachable",
  CIRCUIT_OPEN: "circuit-open",
  POOL_SATURATED: "saturated",
  // PostgreSQL: query_canceled (statement_timeout), lock_not_available (lock_timeout)
  "57014": "saturated",
  "55P03": "saturated",
  // Prisma: no connection for a transaction within maxWait (the pool is exhausted): overload, retry
  P2028: "saturated",
};

const MESSAGES: Array<[RegExp, DatabaseFailure]> = [
  [/connection terminated/i, "unreachable"],
  [/timeout exceeded when trying to connect/i, "unreachable"],
  [/connection refused/i, "unreachable"],
  [/server closed the connection/i, "unreachable"],
  [/client has encountered a connection error/i, "unreachable"],
  [/cannot use a pool after calling end/i, "unreachable"],
  [/the database system is (starting up|shutting down)/i, "unreachable"],
  // A unix socket that is not there (yet): the server is not running. Only a connect's ENOENT,
  // never another missing file.
  [/\bconnect ENOENT /, "unreachable"],
  // the pool's client-side bound on a query (QueryReadTimeoutError, in pg's wording)
  [/query read timeout/i, "saturated"],
  [/canceling statement due to (statement|lock) timeout/i, "saturated"],
];

/** Why the database could not serve this, or undefined when the error is not an outage or overload. */
export function databaseFailure(error: unknown, depth = 0): DatabaseFailure | undefined {
  if (depth > 5 || error === null || typeof error !== "object") return undefined;
  const { code, message, cause } = error as { code?: unknown; message?: unknown; cause?: unknown };
  if (typeof code === "string" && Object.hasOwn(CODES, code)) return CODES[code];
  if (code === "ENOENT" && (error as { syscall?: unknown }).syscall === "connect") return "unreachable";
  if (typeof message === "string") {
    const match = MESSAGES.find(([pattern]) => pattern.test(message));
    if (match !== undefined) return match[1];
  }
  // Prisma's driver-adapter errors keep the original driver error in `meta`.
  const meta = (error as { meta?: { driverAdapterError?: unknown } }).meta;
  return databaseFailure(meta?.driverAdapterError, depth + 1) ?? databaseFailure(cause, depth + 1);
}

export function isDatabaseUnavailableError(error: unknown): boolean {
  return databaseFailure(error) !== undefined;
}
