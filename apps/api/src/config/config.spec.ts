import path from "node:path";
import { ConfigError, loadConfig, WORKSPACE_ROOT } from "./config";

describe(loadConfig.name, () => {
  it("needs no variable at all: embedded mode with defaults", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      host: "0.0.0.0",
      databaseUrl: undefined,
      embeddedSeedDemo: true,
      dbPoolMax: 10,
      retryAfterSeconds: 5,
      logLevel: "info",
      metricsToken: undefined,
      rateLimitMax: 600,
      rateLimitWindowSeconds: 60,
      redisUrl: undefined,
      trustProxy: false,
      shutdownTimeoutMs: 10_000,
      shutdownDrainDelayMs: 5_000,
      httpKeepAliveTimeoutMs: 65_000,
      httpHeadersTimeoutMs: 66_000,
      requestTimeoutMs: 15_000,
      bodyLimitBytes: 102_400,
      corsOrigins: [],
      pageCacheBytes: 16_777_216,
      dbStatementTimeoutMs: 5_000,
      dbLockTimeoutMs: 2_000,
      dbBreakerThreshold: 3,
      dbBreakerProbeMs: 1_000,
      redisCommandTimeoutMs: 100,
    });
    // The database's own bounds answer before the request timeout does.
    expect(config.dbLockTimeoutMs).toBeLessThan(config.dbStatementTimeoutMs);
    expect(config.dbStatementTimeoutMs).toBeLessThan(config.requestTimeoutMs);
    expect(config.embeddedDataDir).toBe(path.join(WORKSPACE_ROOT, ".data/pglite"));
  });

  it("reads every variable", () => {
    const config = loadConfig({
      PORT: "8080",
      HOST: "127.0.0.1",
      DATABASE_URL: "postgresql://u@db:5432/app",
      EMBEDDED_DATA_DIR: "/var/lib/ct",
      EMBEDDED_SEED_DEMO: "false",
      DB_POOL_MAX: "20",
      DB_CONNECT_TIMEOUT_MS: "1500",
      DB_STATEMENT_TIMEOUT_MS: "3000",
      DB_LOCK_TIMEOUT_MS: "800",
      DB_BREAKER_THRESHOLD: "5",
      DB_BREAKER_PROBE_MS: "250",
      RETRY_AFTER_SECONDS: "7",
      PROBLEM_BASE_URL: "https://docs.example.com/problems/",
      LOG_LEVEL: "WARN",
      METRICS_TOKEN: "metrics-secret-0123456789",
      RATE_LIMIT_MAX: "0",
      RATE_LIMIT_WINDOW_SECONDS: "1",
      REDIS_URL: "redis://cache:6379/2",
      REDIS_KEY_PREFIX: "ct:prod:",
      REDIS_COMMAND_TIMEOUT_MS: "40",
      TRUST_PROXY: "10.0.0.0/8, loopback",
      SHUTDOWN_TIMEOUT_MS: "2500",
      SHUTDOWN_DRAIN_DELAY_MS: "0",
      HTTP_KEEP_ALIVE_TIMEOUT_MS: "30000",
      HTTP_HEADERS_TIMEOUT_MS: "31000",
      REQUEST_TIMEOUT_MS: "4000",
      BODY_LIMIT_BYTES: "0",
      CORS_ORIGINS: "https://app.example.com, http://localhost:5173",
      PAGE_CACHE_BYTES: "0",
    });
    expect(config).toEqual({
      port: 8080,
      host: "127.0.0.1",
      databaseUrl: "postgresql://u@db:5432/app",
      embeddedDataDir: "/var/lib/ct",
      embeddedSeedDemo: false,
      dbPoolMax: 20,
      dbConnectTimeoutMs: 1500,
      dbStatementTimeoutMs: 3000,
      dbLockTimeoutMs: 800,
      dbBreakerThreshold: 5,
      dbBreakerProbeMs: 250,
      retryAfterSeconds: 7,
      problemBaseUrl: "https://docs.example.com/problems",
      oauth: expect.objectContaining({ publicUrl: "http://localhost:8080" }),
      logLevel: "warn",
      metricsToken: "metrics-secret-0123456789",
      rateLimitMax: 0,
      rateLimitWindowSeconds: 1,
      redisUrl: "redis://cache:6379/2",
      redisKeyPrefix: "ct:prod:",
      redisCommandTimeoutMs: 40,
      trustProxy: ["10.0.0.0/8", "loopback"],
      shutdownTimeoutMs: 2500,
      shutdownDrainDelayMs: 0,
      httpKeepAliveTimeoutMs: 30_000,
      httpHeadersTimeoutMs: 31_000,
      requestTimeoutMs: 4000,
      bodyLimitBytes: 0,
      corsOrigins: ["https://app.example.com", "http://localhost:5173"],
      pageCacheBytes: 0,
    });
  });

  it("runs the built-in authorization server by default, its issuer under PUBLIC_URL/oauth", () => {
    expect(loadConfig({ PORT: "4000" }).oauth).toEqual({
      publicUrl: "http://localhost:4000",
      builtIn: { issuer: "http://localhost:4000/oauth", audience: "http://localhost:4000" },
      external: undefined,
      jwksCooldownSeconds: 30,
      clockSkewSeconds: 30,
      accessTokenTtlSeconds: 600,
      refreshTokenTtlSeconds: 1_209_600,
      codeTtlSeconds: 60,
    });
  });

  it("reads every OAuth variable", () => {
    const config = loadConfig({
      PUBLIC_URL: "https://api.example.com/",
      AUTH_SERVER: "false",
      OAUTH_ISSUER: "https://idp.example.com/realms/main",
      OAUTH_AUDIENCE: "community-api",
      OAUTH_JWKS_URI: "https://idp.example.com/certs",
      OAUTH_ALLOW_JWT_TYP: "true",
      OAUTH_JWKS_COOLDOWN_SECONDS: "5",
      OAUTH_CLOCK_SKEW_SECONDS: "10",
      OAUTH_ACCESS_TOKEN_TTL_SECONDS: "300",
      OAUTH_REFRESH_TOKEN_TTL_SECONDS: "3600",
      OAUTH_CODE_TTL_SECONDS: "30",
    });
    expect(config.oauth).toEqual({
      publicUrl: "https://api.example.com",
      builtIn: undefined,
      external: {
        issuer: "https://idp.example.com/realms/main",
        audience: "community-api",
        jwksUri: "https://idp.example.com/certs",
        allowJwtTyp: true,
      },
      jwksCooldownSeconds: 5,
      clockSkewSeconds: 10,
      accessTokenTtlSeconds: 300,
      refreshTokenTtlSeconds: 3600,
      codeTtlSeconds: 30,
    });
  });

  it.each([
    [{ PORT: "http" }, /PORT must be an integer between 0 and 65535, got "http"/],
    [{ PORT: "70000" }, /PORT must be an integer/],
    [{ DATABASE_URL: "mysql://x@y/z" }, /DATABASE_URL must use postgresql:\/\//],
    [{ DATABASE_URL: "not a url" }, /DATABASE_URL must be a postgresql:\/\/ URL/],
    [{ EMBEDDED_SEED_DEMO: "maybe" }, /EMBEDDED_SEED_DEMO must be true or false/],
    [{ DB_POOL_MAX: "0" }, /DB_POOL_MAX must be an integer between 1 and 1000/],
    [{ PROBLEM_BASE_URL: "ftp://x" }, /PROBLEM_BASE_URL must be an absolute http\(s\) URL/],
    [{ PUBLIC_URL: "localhost:3000" }, /PUBLIC_URL must be an absolute http\(s\) URL/],
    [{ AUTH_SERVER: "on" }, /AUTH_SERVER must be true or false/],
    [{ OAUTH_ISSUER: "https://idp.example.com" }, /OAUTH_ISSUER and OAUTH_AUDIENCE go together/],
    [{ OAUTH_AUDIENCE: "api" }, /OAUTH_ISSUER and OAUTH_AUDIENCE go together/],
    [{ OAUTH_JWKS_URI: "https://idp.example.com/jwks" }, /OAUTH_JWKS_URI needs OAUTH_ISSUER/],
    [{ OAUTH_CLOCK_SKEW_SECONDS: "600" }, /OAUTH_CLOCK_SKEW_SECONDS must be an integer between 0 and 300/],
    [{ OAUTH_ACCESS_TOKEN_TTL_SECONDS: "1" }, /OAUTH_ACCESS_TOKEN_TTL_SECONDS must be an integer between 10/],
    [
      { LOG_LEVEL: "verbose" },
      /LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "verbose"/,
    ],
    [{ METRICS_TOKEN: "short" }, /METRICS_TOKEN must be at least 16 printable ASCII characters/],
    [{ METRICS_TOKEN: "has a space in the middle" }, /METRICS_TOKEN must be at least 16/],
    [{ RATE_LIMIT_MAX: "-1" }, /RATE_LIMIT_MAX must be an integer between 0 and 10000000, got "-1"/],
    [{ RATE_LIMIT_WINDOW_SECONDS: "0" }, /RATE_LIMIT_WINDOW_SECONDS must be an integer between 1 and 86400/],
    [{ REDIS_URL: "http://cache:6379" }, /REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL/],
    [{ REDIS_URL: "cache:6379" }, /REDIS_URL must be a redis:\/\//],
    [{ REDIS_KEY_PREFIX: "bad prefix" }, /REDIS_KEY_PREFIX must be 1-64 characters/],
    [{ REDIS_COMMAND_TIMEOUT_MS: "0" }, /REDIS_COMMAND_TIMEOUT_MS must be an integer between 10 and 60000, got "0"/],
    [{ DB_LOCK_TIMEOUT_MS: "2s" }, /DB_LOCK_TIMEOUT_MS must be an integer between 10 and 3600000, got "2s"/],
    [{ DB_BREAKER_THRESHOLD: "0" }, /DB_BREAKER_THRESHOLD must be an integer between 1 and 1000, got "0"/],
    [{ DB_BREAKER_PROBE_MS: "10" }, /DB_BREAKER_PROBE_MS must be an integer between 50 and 600000, got "10"/],
    [{ TRUST_PROXY: "10.0.0.0/33" }, /TRUST_PROXY must be .*not understood: "10.0.0.0\/33"/],
    [{ TRUST_PROXY: "proxy.internal" }, /TRUST_PROXY must be .*not understood: "proxy.internal"/],
    [{ SHUTDOWN_TIMEOUT_MS: "1m" }, /SHUTDOWN_TIMEOUT_MS must be an integer between 0 and 600000/],
    [{ SHUTDOWN_DRAIN_DELAY_MS: "-5" }, /SHUTDOWN_DRAIN_DELAY_MS must be an integer between 0 and 600000, got "-5"/],
    [{ HTTP_KEEP_ALIVE_TIMEOUT_MS: "65s" }, /HTTP_KEEP_ALIVE_TIMEOUT_MS must be an integer between 1000 and 300000/],
    [{ HTTP_HEADERS_TIMEOUT_MS: "999" }, /HTTP_HEADERS_TIMEOUT_MS must be an integer between 1000 and 300000/],
    [
      { HTTP_KEEP_ALIVE_TIMEOUT_MS: "70000" },
      /HTTP_HEADERS_TIMEOUT_MS \(66000\) must be greater than HTTP_KEEP_ALIVE_TIMEOUT_MS \(70000\)/,
    ],
    [
      { HTTP_KEEP_ALIVE_TIMEOUT_MS: "5000", HTTP_HEADERS_TIMEOUT_MS: "5000" },
      /HTTP_HEADERS_TIMEOUT_MS \(5000\) must be greater than HTTP_KEEP_ALIVE_TIMEOUT_MS \(5000\)/,
    ],
    [{ REQUEST_TIMEOUT_MS: "50" }, /REQUEST_TIMEOUT_MS must be an integer between 100 and 600000/],
    [{ BODY_LIMIT_BYTES: "1mb" }, /BODY_LIMIT_BYTES must be an integer between 0 and 104857600/],
    [{ CORS_ORIGINS: "*" }, /CORS_ORIGINS must be .*not an origin: "\*"/],
    [
      { CORS_ORIGINS: "https://app.example.com/path" },
      /CORS_ORIGINS must be .*not an origin: "https:\/\/app.example.com\/path"/,
    ],
  ])("rejects %j with a message naming the variable", (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it("reports every bad variable at once", () => {
    try {
      loadConfig({ PORT: "x", DB_POOL_MAX: "y" });
      throw new Error("expected a ConfigError");
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems).toHaveLength(2);
    }
  });
});
