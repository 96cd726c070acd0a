import { loadConfig } from "./config";
import { configSummary } from "./config-summary";

describe(configSummary.name, () => {
  it("names the embedded database, no replica, rate limits in memory, the built-in issuer and the public URL", () => {
    const summary = configSummary(loadConfig({ EMBEDDED_DATA_DIR: "/var/lib/pglite" }));
    expect(summary).toBe(
      "database embedded PostgreSQL in /var/lib/pglite (long polls poll every second); read replica none; rate limits in memory (no REDIS_URL); " +
        "issuer http://localhost:3000/oauth (built in); public URL http://localhost:3000",
    );
  });

  it("names hosts, ports and databases without user names, passwords or parameters", () => {
    const summary = configSummary(
      loadConfig({
        DATABASE_URL: "postgresql://app:s3cret-primary@db.internal:5432/community?sslmode=require",
        DATABASE_READ_URL: "postgresql://reader:s3cret-replica@replica.internal:5433/community",
        REDIS_URL: "redis://:s3cret-redis@cache.internal:6379/2",
        PUBLIC_URL: "https://api.example.com",
        AUTH_SERVER: "false",
        OAUTH_ISSUER: "https://id.example.com/realms/team",
        OAUTH_AUDIENCE: "community-api",
        CURSOR_SECRET: "c".repeat(32),
      }),
    );
    expect(summary).toBe(
      "database PostgreSQL at db.internal:5432/community; read replica replica.internal:5433/community; " +
        "rate limits in Redis at cache.internal:6379/2; issuer https://id.example.com/realms/team (external); " +
        "public URL https://api.example.com",
    );
    expect(summary).not.toMatch(/s3cret|app:|reader|sslmode/);
  });
});
