import { mkdirSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import { lockDataDir } from "./data-dir-lock";

export interface EmbeddedPostgres {
  /** postgresql:// URL of the loopback socket that serves the embedded database. */
  url: string;
  stop(): Promise<void>;
}

/**
 * PGlite (PostgreSQL compiled to WebAssembly) in a data directory, served on a loopback port by
 * pglite-socket, so that the embedded mode runs the same driver, SQL and migrations as a server.
 * PGlite is a single session: callers must use one pooled connection at a time. The data directory
 * is locked while it is open (`<dataDir>.lock`): a second start on it throws DataDirLockedError.
 */
export async function startEmbeddedPostgres(options: {
  dataDir: string;
  host?: string;
  port?: number;
}): Promise<EmbeddedPostgres> {
  mkdirSync(options.dataDir, { recursive: true });
  const lock = lockDataDir(options.dataDir);
  let db: PGlite | undefined;
  let server: PGLiteSocketServer;
  const host = options.host ?? "127.0.0.1";
  try {
    db = await PGlite.create(options.dataDir);
    server = new PGLiteSocketServer({ db, host, port: options.port ?? 0, maxConnections: 4 });
    await server.start();
  } catch (error) {
    await db?.close().catch(() => undefined);
    lock.release();
    throw error;
  }
  const conn = server.getServerConn();
  const port = Number(conn.slice(conn.lastIndexOf(":") + 1));
  const url = `postgresql://postgres:postgres@${host}:${port}/postgres?sslmode=disable`;
  SERVED.add(url);
  return {
    url,
    async stop() {
      SERVED.delete(url);
      try {
        await server.stop();
        await db?.close();
      } finally {
        lock.release();
      }
    },
  };
}

/** The URLs of the embedded databases this process serves now. */
const SERVED = new Set<string>();

/**
 * Whether `url` names an embedded database that this process serves (startEmbeddedPostgres): one
 * PGlite session behind a socket of at most four connections, which does not carry NOTIFY from
 * one connection to another.
 */
export function isEmbeddedDatabaseUrl(url: string): boolean {
  return SERVED.has(url);
}
