import type { AppConfig } from "./config";

/**
 * The one line a start logs about what it was configured with: the database (embedded, or host,
 * port and name), the read replica, where rate limits are counted, the issuers and the public URL.
 * Never a user name, password or query parameter of a URL.
 */
export function configSummary(config: AppConfig): string {
  const issuers = [
    config.oauth.builtIn === undefined ? undefined : `${config.oauth.builtIn.issuer} (built in)`,
    config.oauth.external === undefined ? undefined : `${config.oauth.external.issuer} (external)`,
  ].filter((issuer) => issuer !== undefined);
  return [
    `database ${config.databaseUrl === undefined ? `embedded PostgreSQL in ${config.embeddedDataDir} (long polls poll every second)` : `PostgreSQL at ${where(config.databaseUrl)}`}`,
    `read replica ${config.databaseReadUrl === undefined ? "none" : where(config.databaseReadUrl)}`,
    `rate limits ${config.redisUrl === undefined ? "in memory (no REDIS_URL)" : `in Redis at ${where(config.redisUrl)}`}`,
    `issuer ${issuers.length === 0 ? "none" : issuers.join(", ")}`,
    `public URL ${config.oauth.publicUrl}`,
  ].join("; ");
}

/** host:port/path of a connection URL, without its credentials and parameters. */
function where(url: string): string {
  const parsed = new URL(url);
  return `${parsed.host === "" ? "a local socket" : parsed.host}${parsed.pathname === "/" ? "" : parsed.pathname}`;
}
