import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
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
      requestTimeoutMs: 15_000,
      bodyLimitBytes: 102_400,
      corsOrigins: [],
    });
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
      RETRY_AFTER_SECONDS: "7",
      PROBLEM_BASE_URL: "https://docs.example.com/problems/",
      LOG_LEVEL: "WARN",
      METRICS_TOKEN: "metrics-secret-0123456789",
      RATE_LIMIT_MAX: "0",
      RATE_LIMIT_WINDOW_SECONDS: "1",
      REDIS_URL: "redis://cache:6379/2",
      REDIS_KEY_PREFIX: "ct:prod:",
      TRUST_PROXY: "10.0.0.0/8, loopback",
      SHUTDOWN_TIMEOUT_MS: "2500",
      REQUEST_TIMEOUT_MS: "4000",
      BODY_LIMIT_BYTES: "0",
      CORS_ORIGINS: "https://app.example.com, http://localhost:5173",
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
      retryAfterSeconds: 7,
      problemBaseUrl: "https://docs.example.com/problems",
      oauth: expect.objectContaining({ publicUrl: "http://localhost:8080" }),
      logLevel: "warn",
      metricsToken: "metrics-secret-0123456789",
      rateLimitMax: 0,
      rateLimitWindowSeconds: 1,
      redisUrl: "redis://cache:6379/2",
      redisKeyPrefix: "ct:prod:",
      trustProxy: ["10.0.0.0/8", "loopback"],
      shutdownTimeoutMs: 2500,
      requestTimeoutMs: 4000,
      bodyLimitBytes: 0,
      corsOrigins: ["https://app.example.com", "http://localhost:5173"],
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
      loginLimit: { attempts: 5, windowSeconds: 60, maxLockoutSeconds: 3_600, addressMax: 30 },
      endpointLimit: { max: 60, windowSeconds: 60 },
      sweep: { intervalSeconds: 300, batchSize: 1_000 },
      keyEncryptionKey: undefined,
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
      LOGIN_RATE_LIMIT_ATTEMPTS: "3",
      LOGIN_RATE_LIMIT_WINDOW_SECONDS: "30",
      LOGIN_RATE_LIMIT_MAX_LOCKOUT_SECONDS: "600",
      LOGIN_RATE_LIMIT_ADDRESS_MAX: "0",
      OAUTH_RATE_LIMIT_MAX: "10",
      OAUTH_RATE_LIMIT_WINDOW_SECONDS: "20",
      OAUTH_SWEEP_INTERVAL_SECONDS: "0",
      OAUTH_SWEEP_BATCH_SIZE: "50",
      OAUTH_KEY_ENCRYPTION_KEY: "ab".repeat(32),
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
      loginLimit: { attempts: 3, windowSeconds: 30, maxLockoutSeconds: 600, addressMax: 0 },
      endpointLimit: { max: 10, windowSeconds: 20 },
      sweep: { intervalSeconds: 0, batchSize: 50 },
      keyEncryptionKey: Buffer.alloc(32, 0xab),
    });
  });

  it("takes the key encryption key as hex or base64", () => {
    const key = Buffer.alloc(32, 7);
    expect(loadConfig({ OAUTH_KEY_ENCRYPTION_KEY: key.toString("base64") }).oauth.keyEncryptionKey).toEqual(key);
    expect(loadConfig({ OAUTH_KEY_ENCRYPTION_KEY: key.toString("hex") }).oauth.keyEncryptionKey).toEqual(key);
  });

  describe("secrets from files (<NAME>_FILE)", () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(path.join(tmpdir(), "config-spec-"));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it("reads a secret from the file, without its trailing newline", () => {
      const file = path.join(dir, "metrics-token");
      writeFileSync(file, "metrics-secret-from-a-file\n");
      const key = path.join(dir, "key");
      writeFileSync(key, `${Buffer.alloc(32, 1).toString("base64")}\n`);
      const config = loadConfig({ METRICS_TOKEN_FILE: file, OAUTH_KEY_ENCRYPTION_KEY_FILE: key });
      expect(config.metricsToken).toBe("metrics-secret-from-a-file");
      expect(config.oauth.keyEncryptionKey).toEqual(Buffer.alloc(32, 1));
    });

    it("refuses a variable set both ways, and a file it cannot read", () => {
      const file = path.join(dir, "db-url");
      writeFileSync(file, "postgresql://u@db/app");
      expect(() => loadConfig({ DATABASE_URL: "postgresql://x@y/z", DATABASE_URL_FILE: file })).toThrow(
        /DATABASE_URL and DATABASE_URL_FILE are both set/,
      );
      expect(() => loadConfig({ REDIS_URL_FILE: path.join(dir, "missing") })).toThrow(
        /REDIS_URL_FILE names a file that cannot be read \(ENOENT\)/,
      );
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
    [{ LOGIN_RATE_LIMIT_ATTEMPTS: "-1" }, /LOGIN_RATE_LIMIT_ATTEMPTS must be an integer between 0 and 1000/],
    [{ LOGIN_RATE_LIMIT_WINDOW_SECONDS: "0" }, /LOGIN_RATE_LIMIT_WINDOW_SECONDS must be an integer between 1/],
    [{ LOGIN_RATE_LIMIT_MAX_LOCKOUT_SECONDS: "x" }, /LOGIN_RATE_LIMIT_MAX_LOCKOUT_SECONDS must be an integer/],
    [{ LOGIN_RATE_LIMIT_ADDRESS_MAX: "1.5" }, /LOGIN_RATE_LIMIT_ADDRESS_MAX must be an integer/],
    [{ OAUTH_RATE_LIMIT_MAX: "lots" }, /OAUTH_RATE_LIMIT_MAX must be an integer between 0/],
    [{ OAUTH_RATE_LIMIT_WINDOW_SECONDS: "0" }, /OAUTH_RATE_LIMIT_WINDOW_SECONDS must be an integer between 1/],
    [{ OAUTH_SWEEP_INTERVAL_SECONDS: "-5" }, /OAUTH_SWEEP_INTERVAL_SECONDS must be an integer between 0 and 86400/],
    [{ OAUTH_SWEEP_BATCH_SIZE: "0" }, /OAUTH_SWEEP_BATCH_SIZE must be an integer between 1 and 100000/],
    [{ OAUTH_KEY_ENCRYPTION_KEY: "too-short" }, /OAUTH_KEY_ENCRYPTION_KEY must be 32 bytes as 64 hex digits or base64/],
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
    [{ TRUST_PROXY: "10.0.0.0/33" }, /TRUST_PROXY must be .*not understood: "10.0.0.0\/33"/],
    [{ TRUST_PROXY: "proxy.internal" }, /TRUST_PROXY must be .*not understood: "proxy.internal"/],
    [{ SHUTDOWN_TIMEOUT_MS: "1m" }, /SHUTDOWN_TIMEOUT_MS must be an integer between 0 and 600000/],
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
