import { PrismaPg } from "@prisma/adapter-pg";
import { Pool, type PoolConfig } from "pg";
import { PrismaClient } from "./generated/prisma/client";

export { Prisma, PrismaClient } from "./generated/prisma/client";

export interface DatabaseOptions {
  /** A postgresql:// connection string. */
  url: string;
  /** Most connections the pool opens. */
  poolMax?: number;
  /** How long to wait for a connection before the query fails (ms): bounds an outage's latency. */
  connectTimeoutMs?: number;
  /** Server-side statement_timeout (ms): no query holds a connection longer. */
  statementTimeoutMs?: number;
  /** Called with errors of idle pooled connections (for example when the server goes away). */
  onIdleError?: (error: Error) => void;
}

export interface Database {
  prisma: PrismaClient;
  pool: Pool;
  close(): Promise<void>;
}

/**
 * One node-postgres pool behind the Prisma client (through the pg driver adapter), so that the
 * service, the seed app and the tests share every connection setting and every code path.
 */
export function createDatabase(options: DatabaseOptions): Database {
  const config: PoolConfig = {
    connectionString: options.url,
    max: options.poolMax ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 3_000,
    statement_timeout: options.statementTimeoutMs ?? 10_000,
    // Client-side bound as well: a server that stops answering (no RST) must not hang a request.
    query_timeout: (options.statementTimeoutMs ?? 10_000) + 1_000,
    idleTimeoutMillis: 30_000,
    application_name: "community-team",
  };
  const pool = new Pool(config);
  // An idle connection that the server drops emits 'error' on the pool; unhandled, it would
  // take the process down during a database outage.
  pool.on("error", (error) => options.onIdleError?.(error));
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  let closed = false;
  return {
    prisma,
    pool,
    async close() {
      if (closed) return;
      closed = true;
      await prisma.$disconnect();
      if (!pool.ended) await pool.end();
    },
  };
}
