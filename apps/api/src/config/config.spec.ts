import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ConfigError, loadConfig, loadTracingConfig, WORKSPACE_ROOT } from "./config";

describe(loadConfig.name, () => {
  it("listens on every interface by default with DATABASE_URL, and where HOST says in either mode", () => {
    expect(loadConfig({ DATABASE_URL: "postgresql://u@db:5432/app" }).host).toBe("0.0.0.0");
    expect(loadConfig({ HOST: "0.0.0.0" }).host).toBe("0.0.0.0");
    expect(loadConfig({ HOST: "::1", DATABASE_URL: "postgresql://u@db:5432/app" }).host).toBe("::1");
  });

  it("needs no variable at all: embedded mode with defaults", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      // The embedded demo's tokens are public: loopback unless HOST says otherwise.
      host: "127.0.0.1",
      databaseUrl: undefined,
      databaseReadUrl: undefined,
      databaseReadTimeoutMs: 1_000,
      databasePreparedStatements: true,
      databasePreparedStatementsMax: 32,
      embeddedSeedDemo: true,
      dbPoolMax: 10,
      retryAfterSeconds: 5,
      logLevel: "info",
      metricsToken: undefined,
      rateLimitMax: 600,
      rateLimitWindowSeconds: 60,
      authFailureLimit: 20,
      authFailureWindowSeconds: 60,
      authUnknownTokenCacheMs: 2_000,
      authKnownTokenTtlSeconds: 900,
      redisUrl: undefined,
      trustProxy: false,
      shutdownTimeoutMs: 10_000,
      shutdownDrainDelayMs: 5_000,
      httpKeepAliveTimeoutMs: 65_000,
      httpHeadersTimeoutMs: 66_000,
      httpMaxHeaderBytes: 16_384,
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
      DATABASE_READ_URL: "postgres://u@replica:6432/app",
      DATABASE_LISTEN_URL: "postgresql://u@db-primary:5432/app",
      EMBEDDED_DATA_DIR: "/var/lib/ct",
      EMBEDDED_SEED_DEMO: "false",
      EMBEDDED_DB_PORT: "5499",
      DATABASE_READ_TIMEOUT_MS: "400",
      DATABASE_PREPARED_STATEMENTS: "false",
      DB_POOL_MAX: "20",
      DB_CONNECT_TIMEOUT_MS: "1500",
      DB_STATEMENT_TIMEOUT_MS: "3000",
      DB_LOCK_TIMEOUT_MS: "800",
      DB_BREAKER_THRESHOLD: "5",
      DB_BREAKER_PROBE_MS: "250",
      RETRY_AFTER_SECONDS: "7",
      READINESS_CACHE_MS: "250",
      PROBLEM_BASE_URL: "https://docs.example.com/problems/",
      LOG_LEVEL: "WARN",
      METRICS_TOKEN: "metrics-secret-0123456789",
      NODE_ENV: "production",
      RATE_LIMIT_MAX: "0",
      RATE_LIMIT_WINDOW_SECONDS: "1",
      AUTH_FAILURE_LIMIT: "50",
      AUTH_FAILURE_WINDOW_SECONDS: "300",
      AUTH_UNKNOWN_TOKEN_CACHE_MS: "0",
      AUTH_KNOWN_TOKEN_TTL_SECONDS: "60",
      REDIS_URL: "redis://cache:6379/2",
      REDIS_KEY_PREFIX: "ct:prod:",
      REDIS_COMMAND_TIMEOUT_MS: "40",
      TRUST_PROXY: "10.0.0.0/8, loopback",
      SHUTDOWN_TIMEOUT_MS: "2500",
      SHUTDOWN_DRAIN_DELAY_MS: "0",
      HTTP_KEEP_ALIVE_TIMEOUT_MS: "30000",
      HTTP_HEADERS_TIMEOUT_MS: "31000",
      HTTP_MAX_HEADER_BYTES: "32768",
      REQUEST_TIMEOUT_MS: "4000",
      BODY_LIMIT_BYTES: "0",
      CORS_ORIGINS: "https://app.example.com, http://localhost:5173",
      PAGE_CACHE_BYTES: "0",
      CURSOR_SECRET: "cursor-secret-of-thirty-two-chars-at-least",
      SYNC_RETENTION_DAYS: "14",
      CHANGE_LOG_SWEEP_INTERVAL_SECONDS: "0",
      CHANGES_WAIT_MAX_PER_TOKEN: "2",
      WEBHOOK_ALLOWED_HOSTS: "127.0.0.1, Receiver.Internal",
      WEBHOOK_RETRY_SCHEDULE: "1s,1m,1h",
      WEBHOOK_DELIVERY: "false",
      WEBHOOK_DELIVERY_CONCURRENCY: "3",
      WEBHOOK_TIMEOUT_MS: "5000",
      WEBHOOK_PING_TIMEOUT_MS: "4000",
      WEBHOOK_SUBSCRIPTIONS_MAX: "20",
      WEBHOOK_LOG_RETENTION_DAYS: "7",
      WEBHOOK_SWEEP_INTERVAL_SECONDS: "10",
      WEBHOOK_STALE_LOCK_SECONDS: "30",
      CALENDAR_FEED_RATE_LIMIT_MAX: "120",
      CALENDAR_FEED_RATE_LIMIT_WINDOW_SECONDS: "1800",
      CALENDAR_FEEDS_MAX: "3",
    });
    expect(config).toEqual({
      port: 8080,
      host: "127.0.0.1",
      databaseUrl: "postgresql://u@db:5432/app",
      databaseReadUrl: "postgres://u@replica:6432/app",
      databaseListenUrl: "postgresql://u@db-primary:5432/app",
      databaseReadTimeoutMs: 400,
      databasePreparedStatements: false,
      databasePreparedStatementsMax: 32,
      embeddedDataDir: "/var/lib/ct",
      embeddedDbPort: 5499,
      embeddedSeedDemo: false,
      dbPoolMax: 20,
      dbConnectTimeoutMs: 1500,
      dbStatementTimeoutMs: 3000,
      dbLockTimeoutMs: 800,
      dbBreakerThreshold: 5,
      dbBreakerProbeMs: 250,
      retryAfterSeconds: 7,
      readinessCacheMs: 250,
      problemBaseUrl: "https://docs.example.com/problems",
      oauth: expect.objectContaining({ publicUrl: "http://localhost:8080" }),
      logLevel: "warn",
      metricsToken: "metrics-secret-0123456789",
      production: true,
      rateLimitMax: 0,
      rateLimitWindowSeconds: 1,
      authFailureLimit: 50,
      authFailureWindowSeconds: 300,
      authUnknownTokenCacheMs: 0,
      authKnownTokenTtlSeconds: 60,
      redisUrl: "redis://cache:6379/2",
      redisKeyPrefix: "ct:prod:",
      redisCommandTimeoutMs: 40,
      trustProxy: ["10.0.0.0/8", "loopback"],
      shutdownTimeoutMs: 2500,
      shutdownDrainDelayMs: 0,
      httpKeepAliveTimeoutMs: 30_000,
      httpHeadersTimeoutMs: 31_000,
      httpMaxHeaderBytes: 32_768,
      requestTimeoutMs: 4000,
      bodyLimitBytes: 0,
      corsOrigins: ["https://app.example.com", "http://localhost:5173"],
      pageCacheBytes: 0,
      sync: {
        secret: Buffer.from("cursor-secret-of-thirty-two-chars-at-least"),
        secretGenerated: false,
        retentionSeconds: 14 * 86_400,
        sweepIntervalSeconds: 0,
        waitMaxPerToken: 2,
      },
      webhooks: {
        allowedHosts: new Set(["127.0.0.1", "receiver.internal"]),
        retrySchedule: [1, 60, 3_600],
        delivery: false,
        concurrency: 3,
        timeoutMs: 5_000,
        pingTimeoutMs: 4_000,
        subscriptionsMax: 20,
        logRetentionSeconds: 7 * 86_400,
        sweepIntervalSeconds: 10,
        staleLockSeconds: 30,
      },
      calendarFeeds: { rateLimitMax: 120, rateLimitWindowSeconds: 1800, feedsMax: 3 },
    });
  });

  it("refuses a calendar feed limit out of range, naming the variable", () => {
    expect(() => loadConfig({ CALENDAR_FEED_RATE_LIMIT_WINDOW_SECONDS: "0" })).toThrow(
      /CALENDAR_FEED_RATE_LIMIT_WINDOW_SECONDS must be an integer between 1 and 86400/,
    );
    expect(() => loadConfig({ CALENDAR_FEEDS_MAX: "many" })).toThrow(/CALENDAR_FEEDS_MAX must be an integer/);
  });

  it("refuses a webhook stale-lock time no longer than an attempt, and a bad schedule or host, naming the variable", () => {
    expect(() => loadConfig({ WEBHOOK_STALE_LOCK_SECONDS: "10", WEBHOOK_TIMEOUT_MS: "15000" })).toThrow(
      /WEBHOOK_STALE_LOCK_SECONDS \(10\) must be longer than WEBHOOK_TIMEOUT_MS/,
    );
    expect(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: "5 minutes" })).toThrow(/WEBHOOK_RETRY_SCHEDULE/);
    expect(() => loadConfig({ WEBHOOK_ALLOWED_HOSTS: "*.example.com" })).toThrow(/WEBHOOK_ALLOWED_HOSTS/);
  });

  it("signs cursors with a secret made at start unless CURSOR_SECRET is set, which production requires", () => {
    const embedded = loadConfig({ NODE_ENV: "production" }).sync;
    expect(embedded).toMatchObject({
      secretGenerated: true,
      retentionSeconds: 7 * 86_400,
      sweepIntervalSeconds: 3_600,
      waitMaxPerToken: 4,
    });
    expect(embedded.secret).toHaveLength(32);
    expect(loadConfig({}).sync.secret.equals(embedded.secret)).toBe(false);
    expect(() => loadConfig({ NODE_ENV: "production", DATABASE_URL: "postgresql://u@db/app" })).toThrow(
      /CURSOR_SECRET/,
    );
    expect(() => loadConfig({ CURSOR_SECRET: "short" })).toThrow(/CURSOR_SECRET must be at least 32/);
    expect(() => loadConfig({ SYNC_RETENTION_DAYS: "6" })).toThrow(/SYNC_RETENTION_DAYS must be an integer between 7/);
  });

  it("runs the built-in authorization server by default, its issuer under PUBLIC_URL/oauth", () => {
    expect(loadConfig({ PORT: "4000" }).oauth).toEqual({
      publicUrl: "http://localhost:4000",
      builtIn: { issuer: "http://localhost:4000/oauth", audience: "http://localhost:4000" },
      external: undefined,
      jwksCooldownSeconds: 30,
      issuerTimeoutMs: 5_000,
      clockSkewSeconds: 30,
      maxTokenLifetimeSeconds: 86_400,
      keysReloadSeconds: 30,
      accessTokenTtlSeconds: 600,
      refreshTokenTtlSeconds: 1_209_600,
      codeTtlSeconds: 60,
      sessionTtlSeconds: 86_400,
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
      OAUTH_ISSUER_TIMEOUT_MS: "2000",
      OAUTH_CLOCK_SKEW_SECONDS: "10",
      OAUTH_MAX_TOKEN_LIFETIME_SECONDS: "7200",
      OAUTH_KEYS_RELOAD_SECONDS: "10",
      OAUTH_ACCESS_TOKEN_TTL_SECONDS: "300",
      OAUTH_REFRESH_TOKEN_TTL_SECONDS: "3600",
      OAUTH_CODE_TTL_SECONDS: "30",
      OAUTH_SESSION_TTL_SECONDS: "1800",
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
        subjects: "local",
      },
      jwksCooldownSeconds: 5,
      issuerTimeoutMs: 2000,
      clockSkewSeconds: 10,
      maxTokenLifetimeSeconds: 7200,
      keysReloadSeconds: 10,
      accessTokenTtlSeconds: 300,
      refreshTokenTtlSeconds: 3600,
      codeTtlSeconds: 30,
      sessionTtlSeconds: 1800,
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

    it("refuses a file over 65536 bytes, naming the variable", () => {
      const file = path.join(dir, "too-large");
      writeFileSync(file, "x".repeat(65_537));
      expect(() => loadConfig({ METRICS_TOKEN_FILE: file })).toThrow(
        /METRICS_TOKEN_FILE names a file larger than 65536 bytes/,
      );
      const justRight = path.join(dir, "just-right");
      writeFileSync(justRight, "y".repeat(65_536));
      expect(loadConfig({ METRICS_TOKEN_FILE: justRight }).metricsToken).toHaveLength(65_536);
    });

    it.each([
      ["a character device", "/dev/null"],
      ["an endless device", "/dev/zero"],
      ["a directory", "."],
    ])("refuses %s, naming the variable", (_case, file) => {
      expect(() => loadConfig({ OAUTH_KEY_ENCRYPTION_KEY_FILE: file === "." ? dir : file })).toThrow(
        /OAUTH_KEY_ENCRYPTION_KEY_FILE names something that is not a regular file/,
      );
    });
  });

  it.each([
    [{ PORT: "http" }, /PORT must be an integer between 0 and 65535, got "http"/],
    [{ PORT: "70000" }, /PORT must be an integer/],
    [{ DATABASE_URL: "mysql://x@y/z" }, /DATABASE_URL must use postgresql:\/\//],
    [{ DATABASE_URL: "not a url" }, /DATABASE_URL must be a postgresql:\/\/ URL/],
    [{ EMBEDDED_SEED_DEMO: "maybe" }, /EMBEDDED_SEED_DEMO must be true or false/],
    [{ EMBEDDED_DB_PORT: "65536" }, /EMBEDDED_DB_PORT must be an integer between 0 and 65535/],
    [{ DB_POOL_MAX: "0" }, /DB_POOL_MAX must be an integer between 1 and 1000/],
    [{ PROBLEM_BASE_URL: "ftp://x" }, /PROBLEM_BASE_URL must be an absolute http\(s\) URL/],
    [{ PUBLIC_URL: "localhost:3000" }, /PUBLIC_URL must be an absolute http\(s\) URL/],
    [{ AUTH_SERVER: "on" }, /AUTH_SERVER must be true or false/],
    [{ OAUTH_ISSUER: "https://idp.example.com" }, /OAUTH_ISSUER and OAUTH_AUDIENCE go together/],
    [{ OAUTH_AUDIENCE: "api" }, /OAUTH_ISSUER and OAUTH_AUDIENCE go together/],
    [{ OAUTH_JWKS_URI: "https://idp.example.com/jwks" }, /OAUTH_JWKS_URI needs OAUTH_ISSUER/],
    [
      { OAUTH_ISSUER: "https://idp.example.com", OAUTH_AUDIENCE: "api" },
      /OAUTH_ISSUER is set while the built-in authorization server is on .* declare OAUTH_EXTERNAL_SUBJECTS=local/,
    ],
    [
      { OAUTH_ISSUER: "https://idp.example.com", OAUTH_AUDIENCE: "api", OAUTH_EXTERNAL_SUBJECTS: "mapped" },
      /OAUTH_EXTERNAL_SUBJECTS must be "local" .*got "mapped"/,
    ],
    [{ OAUTH_EXTERNAL_SUBJECTS: "local" }, /OAUTH_EXTERNAL_SUBJECTS needs OAUTH_ISSUER/],
    [
      { OAUTH_MAX_TOKEN_LIFETIME_SECONDS: "120" },
      /OAUTH_MAX_TOKEN_LIFETIME_SECONDS \(120\) must be at least OAUTH_ACCESS_TOKEN_TTL_SECONDS \(600\)/,
    ],
    [{ OAUTH_KEYS_RELOAD_SECONDS: "0" }, /OAUTH_KEYS_RELOAD_SECONDS must be an integer between 1 and 3600/],
    [{ OAUTH_ISSUER_TIMEOUT_MS: "10" }, /OAUTH_ISSUER_TIMEOUT_MS must be an integer between 100/],
    [{ OAUTH_SESSION_TTL_SECONDS: "1" }, /OAUTH_SESSION_TTL_SECONDS must be an integer between 60/],
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
    [{ HTTP_MAX_HEADER_BYTES: "512" }, /HTTP_MAX_HEADER_BYTES must be an integer between 1024 and 1048576, got "512"/],
    [
      { DATABASE_READ_URL: "mysql://replica/app", DATABASE_URL: "postgresql://db/app" },
      /DATABASE_READ_URL must use postgresql:\/\/, got mysql:\/\//,
    ],
    [{ DATABASE_READ_URL: "postgresql://replica/app" }, /DATABASE_READ_URL needs DATABASE_URL/],
    [
      { DATABASE_LISTEN_URL: "http://db/app", DATABASE_URL: "postgresql://pooler/app" },
      /DATABASE_LISTEN_URL must use postgresql:\/\/, got http:\/\//,
    ],
    [{ DATABASE_LISTEN_URL: "postgresql://db/app" }, /DATABASE_LISTEN_URL needs DATABASE_URL/],
    [{ CHANGES_WAIT_MAX_PER_TOKEN: "-1" }, /CHANGES_WAIT_MAX_PER_TOKEN must be an integer between 0 and 10000/],
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

describe("tracing configuration", () => {
  const ENDPOINT = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/" };

  it("is off with no variable, and with OTEL_TRACES_EXPORTER=none even when an endpoint is set", () => {
    expect(loadConfig({}).tracing).toBeUndefined();
    expect(loadConfig({ ...ENDPOINT, OTEL_TRACES_EXPORTER: "none" }).tracing).toBeUndefined();
  });

  it("exports to OTEL_EXPORTER_OTLP_ENDPOINT's /v1/traces, following the caller's sampling decision", () => {
    expect(loadConfig(ENDPOINT).tracing).toEqual({
      url: "http://collector:4318/v1/traces",
      serviceName: "community-team-api",
      parentBased: true,
      ratio: 1,
      batchDelayMs: 5_000,
    });
  });

  it("reads every tracing variable", () => {
    expect(
      loadConfig({
        ...ENDPOINT,
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://otel.example.com/custom/traces",
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
        OTEL_TRACES_EXPORTER: "OTLP",
        OTEL_SERVICE_NAME: "team-api-eu",
        OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
        OTEL_TRACES_SAMPLER_ARG: "0.25",
        OTEL_BSP_SCHEDULE_DELAY: "1000",
      }).tracing,
    ).toEqual({
      url: "https://otel.example.com/custom/traces",
      serviceName: "team-api-eu",
      parentBased: true,
      ratio: 0.25,
      batchDelayMs: 1_000,
    });
  });

  it.each([
    ["always_on", { parentBased: false, ratio: 1 }],
    ["always_off", { parentBased: false, ratio: 0 }],
    ["traceidratio", { parentBased: false, ratio: 0.5 }],
    ["parentbased_always_off", { parentBased: true, ratio: 0 }],
  ])("maps OTEL_TRACES_SAMPLER=%s", (sampler, expected) => {
    const env = { ...ENDPOINT, OTEL_TRACES_SAMPLER: sampler, OTEL_TRACES_SAMPLER_ARG: "0.5" };
    expect(loadConfig(env).tracing).toMatchObject(expected);
  });

  it("sends to the standard local collector when only OTEL_TRACES_EXPORTER=otlp is set", () => {
    expect(loadConfig({ OTEL_TRACES_EXPORTER: "otlp" }).tracing?.url).toBe("http://localhost:4318/v1/traces");
  });

  it.each([
    [
      { OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" },
      /OTEL_EXPORTER_OTLP_ENDPOINT must be an absolute http\(s\) URL/,
    ],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "grpc://c:4317" }, /OTEL_EXPORTER_OTLP_TRACES_ENDPOINT must be an absolute/],
    [{ OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }, /OTEL_EXPORTER_OTLP_PROTOCOL must be http\/json .*got "grpc"/],
    [{ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/protobuf" }, /OTEL_EXPORTER_OTLP_TRACES_PROTOCOL must be http\/json/],
    [{ OTEL_TRACES_EXPORTER: "zipkin" }, /OTEL_TRACES_EXPORTER must be one of otlp, none, got "zipkin"/],
    [
      { OTEL_TRACES_SAMPLER: "sometimes" },
      /OTEL_TRACES_SAMPLER must be one of parentbased_always_on, .*got "sometimes"/,
    ],
    [{ OTEL_TRACES_SAMPLER_ARG: "1.5" }, /OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1, got "1.5"/],
    [{ OTEL_TRACES_SAMPLER_ARG: "half" }, /OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1/],
    [{ OTEL_BSP_SCHEDULE_DELAY: "5s" }, /OTEL_BSP_SCHEDULE_DELAY must be an integer between 10 and 600000, got "5s"/],
  ])("rejects %j with a message naming the variable", (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  describe(loadTracingConfig.name, () => {
    it("reads the tracing variables alone, whatever else is wrong (loadConfig reports that)", () => {
      expect(loadTracingConfig({ ...ENDPOINT, PORT: "not a port" })?.url).toBe("http://collector:4318/v1/traces");
    });

    it("leaves tracing off when a tracing variable is invalid, for loadConfig to report", () => {
      expect(loadTracingConfig({ ...ENDPOINT, OTEL_TRACES_SAMPLER_ARG: "2" })).toBeUndefined();
      expect(loadTracingConfig({})).toBeUndefined();
    });
  });
});
