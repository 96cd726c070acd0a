import { type Database, isEmbeddedDatabaseUrl } from "@community/db";
import type { AppConfig } from "../config/config";

/**
 * The database URL the webhooks' queue connects to (DATABASE_LISTEN_URL, a direct connection to
 * the primary, when DATABASE_URL names a transaction pooler), or undefined on the embedded
 * database. Webhooks need PostgreSQL: their queue (graphile-worker) holds a LISTEN connection and
 * takes jobs with SKIP LOCKED across connections, which the embedded database (one PGlite session
 * behind a socket of four connections, no NOTIFY between them) cannot carry. There their routes
 * answer 501 webhooks-unavailable; the long poll (10.1) works on both.
 */
export function webhooksDatabaseUrl(
  config: Pick<AppConfig, "databaseUrl" | "databaseListenUrl">,
  database: Database,
): string | undefined {
  const url = config.databaseUrl ?? (database.pool.options.connectionString as string | undefined);
  if (url === undefined || isEmbeddedDatabaseUrl(url)) return undefined;
  return config.databaseListenUrl ?? url;
}
