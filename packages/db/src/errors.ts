/**
 * Tells whether an error means "the database cannot be reached right now" (refused or dropped
 * connection, connect timeout, server shutting down) as opposed to a bug or a bad query. Such
 * errors become 503 with Retry-After; the pool reconnects by itself once the server is back.
 */
const UNAVAILABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  // PostgreSQL SQLSTATEs: admin_shutdown, crash_shutdown, cannot_connect_now, connection failures
  "57P01",
  "57P02",
  "57P03",
  "08000",
  "08001",
  "08003",
  "08004",
  "08006",
  // Prisma: can't reach database server, connection timeout, connection closed
  "P1001",
  "P1002",
  "P1017",
  // Prisma: no connection for a transaction within maxWait (the pool is exhausted): overload, retry
  "P2028",
]);

const UNAVAILABLE_MESSAGES = [
  /connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /connection refused/i,
  /server closed the connection/i,
  /client has encountered a connection error/i,
  /cannot use a pool after calling end/i,
  /Connection terminated unexpectedly/i,
  /the database system is (starting up|shutting down)/i,
];

export function isDatabaseUnavailableError(error: unknown, depth = 0): boolean {
  if (depth > 5 || error === null || typeof error !== "object") return false;
  const { code, message, cause } = error as { code?: unknown; message?: unknown; cause?: unknown };
  if (typeof code === "string" && UNAVAILABLE_CODES.has(code)) return true;
  if (typeof message === "string" && UNAVAILABLE_MESSAGES.some((re) => re.test(message))) {
    return true;
  }
  // Prisma's driver-adapter errors keep the original driver error in `cause`.
  const meta = (error as { meta?: { driverAdapterError?: unknown } }).meta;
  if (meta?.driverAdapterError && isDatabaseUnavailableError(meta.driverAdapterError, depth + 1)) {
    return true;
  }
  return isDatabaseUnavailableError(cause, depth + 1);
}
