import { mkdirSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";

export interface EmbeddedPostgres {
  /** postgresql:// URL of the loopback socket that serves the embedded database. */
  url: string;
  stop(): Promise<void>;
}

/**
 * PGlite (PostgreSQL compiled to WebAssembly) in a data directory, served on a loopback port by
 * pglite-socket, so that the embedded mode runs the same driver, SQL and migrations as a server.
 * PGlite is a single session: callers must use one pooled connection at a time.
 */
export async function startEmbeddedPostgres(options: {
  dataDir: string;
  host?: string;
  port?: number;
}): Promise<EmbeddedPostgres> {
  mkdirSync(options.dataDir, { recursive: true });
  const db = await PGlite.create(options.dataDir);
  const host = options.host ?? "127.0.0.1";
  const server = new PGLiteSocketServer({ db, host, port: options.port ?? 0, maxConnections: 4 });
  await server.start();
  const conn = server.getServerConn();
  const port = Number(conn.slice(conn.lastIndexOf(":") + 1));
  return {
    url: `postgresql://postgres:postgres@${host}:${port}/postgres?sslmode=disable`,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}
