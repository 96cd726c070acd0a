import { randomBytes } from "node:crypto";
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { isIP } from "node:net";
import path from "node:path";
import { z } from "zod";
import { parseAllowedHosts, parseRetrySchedule } from "./webhook-settings";

/** The workspace root (apps/api/src or apps/api/dist, three levels up). */
export const WORKSPACE_ROOT = path.resolve(__dirname, "../../../..");

const integer = (name: string, min: number, max: number, fallback: number) =>
  z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw === "") return fallback;
      if (!/^[0-9]+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
        ctx.addIssue({ code: "custom", message: `${name} must be an integer between ${min} and ${max}, got "${raw}"` });
        return z.NEVER;
      }
      return Number(raw);
    });

const boolean = (name: string, fallback: boolean) =>
  z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw === "") return fallback;
      if (["true", "1", "yes"].includes(raw.toLowerCase())) return true;
      if (["false", "0", "no"].includes(raw.toLowerCase())) return false;
      ctx.addIssue({ code: "custom", message: `${name} must be true or false, got "${raw}"` });
      return z.NEVER;
    });

/** A variable read by `parse`, whose error message (naming the variable) becomes the issue. */
const parsedBy = <T>(parse: (raw: string | undefined) => T) =>
  z
    .string()
    .optional()
    .transform((raw, ctx) => {
      try {
        return parse(raw);
      } catch (error) {
        ctx.addIssue({ code: "custom", message: (error as Error).message });
        return z.NEVER;
      }
    });

const postgresUrl = (name: string) =>
  z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw === "") return undefined;
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        ctx.addIssue({ code: "custom", message: `${name} must be a postgresql:// URL` });
        return z.NEVER;
      }
      if (url.protocol !== "postgresql:" && url.protocol !== "postgres:") {
        ctx.addIssue({ code: "custom", message: `${name} must use postgresql://, got ${url.protocol}//` });
        return z.NEVER;
      }
      return raw;
    });

const httpUrl = (name: string, fallback: string) =>
  z
    .string()
    .optional()
    .transform((raw, ctx) => {
      const value = raw === undefined || raw === "" ? fallback : raw;
      try {
        const url = new URL(value);
        if (url.protocol === "https:" || url.protocol === "http:") return value.replace(/\/+$/, "");
      } catch {
        // reported below
      }
      ctx.addIssue({ code: "custom", message: `${name} must be an absolute http(s) URL, got "${value}"` });
      return z.NEVER;
    });

/** An optional URL whose scheme is one of `protocols`; `message` says what is expected. */
const optionalUrl = (protocols: string[], message: (raw: string) => string) =>
  z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw === "") return undefined;
      try {
        if (protocols.includes(new URL(raw).protocol)) return raw;
      } catch {
        // reported below
      }
      ctx.addIssue({ code: "custom", message: message(raw) });
      return z.NEVER;
    });

const optionalHttpUrl = (name: string) =>
  optionalUrl(["http:", "https:"], (raw) => `${name} must be an absolute http(s) URL, got "${raw}"`);

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const logLevel = z
  .string()
  .optional()
  .transform((raw, ctx): LogLevel => {
    const value = raw === undefined || raw === "" ? "info" : raw.toLowerCase();
    if ((LOG_LEVELS as readonly string[]).includes(value)) return value as LogLevel;
    ctx.addIssue({ code: "custom", message: `LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}, got "${raw}"` });
    return z.NEVER;
  });

const secret = (name: string, minLength: number) =>
  z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw === "") return undefined;
      if (raw.length < minLength || !/^[\x21-\x7e]+$/.test(raw)) {
        ctx.addIssue({
          code: "custom",
          message: `${name} must be at least ${minLength} printable ASCII characters without spaces`,
        });
        return z.NEVER;
      }
      return raw;
    });

const redisUrl = optionalUrl(["redis:", "rediss:"], () => "REDIS_URL must be a redis:// or rediss:// URL");

/** Express' `trust proxy`: off, on, a hop count, or the addresses (IP, CIDR, loopback…) of the proxies. */
export type TrustProxy = boolean | number | string[];
const PROXY_NAMES = ["loopback", "linklocal", "uniquelocal"];
const trustProxy = z
  .string()
  .optional()
  .transform((raw, ctx): TrustProxy => {
    if (raw === undefined || raw === "" || ["false", "0", "no"].includes(raw.toLowerCase())) return false;
    if (["true", "yes"].includes(raw.toLowerCase())) return true;
    if (/^[0-9]{1,2}$/.test(raw)) return Number(raw);
    const entries = raw.split(",").map((entry) => entry.trim());
    const bad = entries.filter((entry) => !PROXY_NAMES.includes(entry) && !isAddressOrCidr(entry));
    if (bad.length === 0) return entries;
    ctx.addIssue({
      code: "custom",
      message: `TRUST_PROXY must be true, false, a hop count, or a comma-separated list of IP addresses, CIDR ranges or ${PROXY_NAMES.join("/")}; not understood: "${bad.join('", "')}"`,
    });
    return z.NEVER;
  });

function isAddressOrCidr(value: string): boolean {
  const [address = "", bits, ...rest] = value.split("/");
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (bits === undefined) return true;
  return /^[0-9]{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

const corsOrigins = z
  .string()
  .optional()
  .transform((raw, ctx) => {
    if (raw === undefined || raw.trim() === "") return [];
    const origins = raw.split(",").map((entry) => entry.trim());
    const bad = origins.filter((origin) => {
      try {
        const url = new URL(origin);
        return !["http:", "https:"].includes(url.protocol) || url.origin !== origin;
      } catch {
        return true;
      }
    });
    if (bad.length === 0) return origins;
    ctx.addIssue({
      code: "custom",
      message: `CORS_ORIGINS must be a comma-separated list of origins such as https://app.example.com (scheme, host, optional port, no path); not an origin: "${bad.join('", "')}"`,
    });
    return z.NEVER;
  });

const keyPrefix = z
  .string()
  .optional()
  .transform((raw, ctx) => {
    const value = raw === undefined || raw === "" ? "community-team:" : raw;
    if (/^[A-Za-z0-9:_.-]{1,64}$/.test(value)) return value;
    ctx.addIssue({
      code: "custom",
      message: `REDIS_KEY_PREFIX must be 1-64 characters of A-Z a-z 0-9 : _ . -, got "${raw}"`,
    });
    return z.NEVER;
  });

const TRACE_SAMPLERS = [
  "parentbased_always_on",
  "parentbased_always_off",
  "parentbased_traceidratio",
  "always_on",
  "always_off",
  "traceidratio",
] as const;

/** An optional string that must be one of `values` (compared in lower case). */
const oneOf = <const T extends string>(name: string, values: readonly T[]) =>
  z
    .string()
    .optional()
    .transform((raw, ctx): T | undefined => {
      if (raw === undefined || raw.trim() === "") return undefined;
      const value = raw.trim().toLowerCase();
      if ((values as readonly string[]).includes(value)) return value as T;
      ctx.addIssue({ code: "custom", message: `${name} must be one of ${values.join(", ")}, got "${raw}"` });
      return z.NEVER;
    });

/** The only OTLP encoding the api ships (@opentelemetry/exporter-trace-otlp-http). */
const otlpProtocol = (name: string) =>
  z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw === "" || raw === "http/json") return undefined;
      ctx.addIssue({
        code: "custom",
        message: `${name} must be http/json (the api exports OTLP over HTTP with JSON bodies), got "${raw}"`,
      });
      return z.NEVER;
    });

const ratio = z
  .string()
  .optional()
  .transform((raw, ctx) => {
    if (raw === undefined || raw === "") return 1;
    if (/^(0(\.[0-9]+)?|1(\.0+)?|\.[0-9]+)$/.test(raw.trim())) return Number(raw);
    ctx.addIssue({ code: "custom", message: `OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1, got "${raw}"` });
    return z.NEVER;
  });

/**
 * OpenTelemetry's standard variables that switch tracing on and shape it. Tracing is off unless an
 * OTLP endpoint is set (or OTEL_TRACES_EXPORTER=otlp); the exporter itself also reads
 * OTEL_EXPORTER_OTLP_HEADERS, _TIMEOUT, _COMPRESSION and the certificate variables.
 */
const TracingEnvSchema = z.object({
  OTEL_TRACES_EXPORTER: oneOf("OTEL_TRACES_EXPORTER", ["otlp", "none"] as const),
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalHttpUrl("OTEL_EXPORTER_OTLP_ENDPOINT"),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: optionalHttpUrl("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"),
  OTEL_EXPORTER_OTLP_PROTOCOL: otlpProtocol("OTEL_EXPORTER_OTLP_PROTOCOL"),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: otlpProtocol("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"),
  OTEL_SERVICE_NAME: z
    .string()
    .optional()
    .transform((v) => v?.trim() || "community-team-api"),
  OTEL_TRACES_SAMPLER: oneOf("OTEL_TRACES_SAMPLER", TRACE_SAMPLERS),
  OTEL_TRACES_SAMPLER_ARG: ratio,
  OTEL_BSP_SCHEDULE_DELAY: integer("OTEL_BSP_SCHEDULE_DELAY", 10, 600_000, 5_000),
});

/** 32 bytes, as 64 hex digits or base64 (44 characters): the AES-256-GCM key of the stored OAuth keys. */
const encryptionKey = z
  .string()
  .optional()
  .transform((raw, ctx) => {
    if (raw === undefined || raw === "") return undefined;
    const key = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, "hex") : Buffer.from(raw, "base64");
    if (key.length === 32 && (/^[0-9a-fA-F]{64}$/.test(raw) || key.toString("base64") === raw)) return key;
    ctx.addIssue({
      code: "custom",
      message: "OAUTH_KEY_ENCRYPTION_KEY must be 32 bytes as 64 hex digits or base64 (openssl rand -base64 32)",
    });
    return z.NEVER;
  });

/** How an external issuer's `sub` relates to the local users (`users.id`). */
const externalSubjects = z
  .string()
  .optional()
  .transform((raw, ctx): "local" | undefined => {
    if (raw === undefined || raw === "") return undefined;
    if (raw === "local") return "local";
    ctx.addIssue({
      code: "custom",
      message: `OAUTH_EXTERNAL_SUBJECTS must be "local" (the external issuer's sub is a users.id), got "${raw}"`,
    });
    return z.NEVER;
  });

/** Secrets that may instead be read from a file named by `<NAME>_FILE` (mounted secrets). */
const FILE_VARIABLES = [
  "DATABASE_URL",
  "REDIS_URL",
  "METRICS_TOKEN",
  "OAUTH_KEY_ENCRYPTION_KEY",
  "CURSOR_SECRET",
] as const;

/** Far more than any of these secrets needs; a larger file is a mistake (or /dev/zero). */
const SECRET_FILE_MAX_BYTES = 65_536;

/**
 * A secret file's content, read only from a regular file and only up to SECRET_FILE_MAX_BYTES:
 * a device or a pipe could block the start or grow the process without bound. Opened without
 * blocking (a FIFO would wait for a writer), then checked on the open descriptor.
 */
function readSecretFile(file: string): string | "not-a-file" | "too-large" {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    if (!fstatSync(fd).isFile()) return "not-a-file";
    // One byte more than allowed tells a file at the bound from a larger one (the size of files
    // under /proc is 0, so it is not trusted).
    const buffer = Buffer.alloc(SECRET_FILE_MAX_BYTES + 1);
    let length = 0;
    for (let read = -1; read !== 0 && length < buffer.length; length += read) {
      read = readSync(fd, buffer, length, buffer.length - length, null);
    }
    return length > SECRET_FILE_MAX_BYTES ? "too-large" : buffer.toString("utf8", 0, length);
  } finally {
    closeSync(fd);
  }
}

/** The environment with every `<NAME>_FILE` replaced by the file's content (trailing newline removed). */
function readFileVariables(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const resolved = { ...env };
  const problems: string[] = [];
  for (const name of FILE_VARIABLES) {
    const file = env[`${name}_FILE`];
    if (file === undefined || file === "") continue;
    if (env[name] !== undefined && env[name] !== "") {
      problems.push(`${name} and ${name}_FILE are both set; set one of them`);
      continue;
    }
    try {
      const secret = readSecretFile(file);
      if (secret === "not-a-file") problems.push(`${name}_FILE names something that is not a regular file`);
      else if (secret === "too-large")
        problems.push(`${name}_FILE names a file larger than ${SECRET_FILE_MAX_BYTES} bytes`);
      else resolved[name] = secret.replace(/\r?\n$/, "");
    } catch (error) {
      problems.push(
        `${name}_FILE names a file that cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})`,
      );
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return resolved;
}

/** Every environment variable the api reads, with its default. README's table mirrors this. */
export const EnvSchema = z.object({
  // Only "production" changes anything (GET /metrics then needs METRICS_TOKEN, and a deployment with
  // DATABASE_URL needs CURSOR_SECRET); other values are Node's business.
  NODE_ENV: z
    .string()
    .optional()
    .transform((v) => v || undefined),
  PORT: integer("PORT", 0, 65535, 3000),
  // Unset: loopback for the embedded demo (its tokens are public), every interface with DATABASE_URL.
  HOST: z
    .string()
    .optional()
    .transform((v) => v || undefined),
  DATABASE_URL: postgresUrl("DATABASE_URL"),
  DATABASE_READ_URL: postgresUrl("DATABASE_READ_URL"),
  DATABASE_LISTEN_URL: postgresUrl("DATABASE_LISTEN_URL"),
  DATABASE_READ_TIMEOUT_MS: integer("DATABASE_READ_TIMEOUT_MS", 50, 600_000, 1_000),
  DATABASE_PREPARED_STATEMENTS: boolean("DATABASE_PREPARED_STATEMENTS", true),
  DATABASE_PREPARED_STATEMENTS_MAX: integer("DATABASE_PREPARED_STATEMENTS_MAX", 1, 1_000, 32),
  EMBEDDED_DATA_DIR: z
    .string()
    .optional()
    .transform((v) => path.resolve(WORKSPACE_ROOT, v || ".data/pglite")),
  EMBEDDED_SEED_DEMO: boolean("EMBEDDED_SEED_DEMO", true),
  EMBEDDED_DB_PORT: integer("EMBEDDED_DB_PORT", 0, 65535, 0),
  DB_POOL_MAX: integer("DB_POOL_MAX", 1, 1000, 10),
  DB_CONNECT_TIMEOUT_MS: integer("DB_CONNECT_TIMEOUT_MS", 100, 600_000, 2_000),
  DB_STATEMENT_TIMEOUT_MS: integer("DB_STATEMENT_TIMEOUT_MS", 100, 3_600_000, 5_000),
  DB_LOCK_TIMEOUT_MS: integer("DB_LOCK_TIMEOUT_MS", 10, 3_600_000, 2_000),
  DB_BREAKER_THRESHOLD: integer("DB_BREAKER_THRESHOLD", 1, 1_000, 3),
  DB_BREAKER_PROBE_MS: integer("DB_BREAKER_PROBE_MS", 50, 600_000, 1_000),
  RETRY_AFTER_SECONDS: integer("RETRY_AFTER_SECONDS", 1, 3_600, 5),
  READINESS_CACHE_MS: integer("READINESS_CACHE_MS", 0, 60_000, 1_000),
  PROBLEM_BASE_URL: httpUrl("PROBLEM_BASE_URL", "https://community-team.dev/problems"),
  PUBLIC_URL: optionalHttpUrl("PUBLIC_URL"),
  AUTH_SERVER: boolean("AUTH_SERVER", true),
  OAUTH_ISSUER: optionalHttpUrl("OAUTH_ISSUER"),
  OAUTH_AUDIENCE: z
    .string()
    .optional()
    .transform((v) => v || undefined),
  OAUTH_JWKS_URI: optionalHttpUrl("OAUTH_JWKS_URI"),
  OAUTH_ALLOW_JWT_TYP: boolean("OAUTH_ALLOW_JWT_TYP", false),
  OAUTH_EXTERNAL_SUBJECTS: externalSubjects,
  OAUTH_JWKS_COOLDOWN_SECONDS: integer("OAUTH_JWKS_COOLDOWN_SECONDS", 0, 3_600, 30),
  OAUTH_ISSUER_TIMEOUT_MS: integer("OAUTH_ISSUER_TIMEOUT_MS", 100, 60_000, 5_000),
  OAUTH_MAX_TOKEN_LIFETIME_SECONDS: integer("OAUTH_MAX_TOKEN_LIFETIME_SECONDS", 60, 31_536_000, 86_400),
  OAUTH_KEYS_RELOAD_SECONDS: integer("OAUTH_KEYS_RELOAD_SECONDS", 1, 3_600, 30),
  OAUTH_CLOCK_SKEW_SECONDS: integer("OAUTH_CLOCK_SKEW_SECONDS", 0, 300, 30),
  OAUTH_ACCESS_TOKEN_TTL_SECONDS: integer("OAUTH_ACCESS_TOKEN_TTL_SECONDS", 10, 86_400, 600),
  OAUTH_REFRESH_TOKEN_TTL_SECONDS: integer("OAUTH_REFRESH_TOKEN_TTL_SECONDS", 60, 31_536_000, 1_209_600),
  OAUTH_CODE_TTL_SECONDS: integer("OAUTH_CODE_TTL_SECONDS", 1, 600, 60),
  OAUTH_SESSION_TTL_SECONDS: integer("OAUTH_SESSION_TTL_SECONDS", 60, 31_536_000, 86_400),
  LOGIN_RATE_LIMIT_ATTEMPTS: integer("LOGIN_RATE_LIMIT_ATTEMPTS", 0, 1_000, 5),
  LOGIN_RATE_LIMIT_WINDOW_SECONDS: integer("LOGIN_RATE_LIMIT_WINDOW_SECONDS", 1, 86_400, 60),
  LOGIN_RATE_LIMIT_MAX_LOCKOUT_SECONDS: integer("LOGIN_RATE_LIMIT_MAX_LOCKOUT_SECONDS", 1, 86_400, 3_600),
  LOGIN_RATE_LIMIT_ADDRESS_MAX: integer("LOGIN_RATE_LIMIT_ADDRESS_MAX", 0, 1_000_000, 30),
  OAUTH_RATE_LIMIT_MAX: integer("OAUTH_RATE_LIMIT_MAX", 0, 10_000_000, 60),
  OAUTH_RATE_LIMIT_WINDOW_SECONDS: integer("OAUTH_RATE_LIMIT_WINDOW_SECONDS", 1, 86_400, 60),
  OAUTH_SWEEP_INTERVAL_SECONDS: integer("OAUTH_SWEEP_INTERVAL_SECONDS", 0, 86_400, 300),
  OAUTH_SWEEP_BATCH_SIZE: integer("OAUTH_SWEEP_BATCH_SIZE", 1, 100_000, 1_000),
  OAUTH_KEY_ENCRYPTION_KEY: encryptionKey,
  LOG_LEVEL: logLevel,
  METRICS_TOKEN: secret("METRICS_TOKEN", 16),
  RATE_LIMIT_MAX: integer("RATE_LIMIT_MAX", 0, 10_000_000, 600),
  RATE_LIMIT_WINDOW_SECONDS: integer("RATE_LIMIT_WINDOW_SECONDS", 1, 86_400, 60),
  AUTH_FAILURE_LIMIT: integer("AUTH_FAILURE_LIMIT", 0, 10_000_000, 20),
  AUTH_FAILURE_WINDOW_SECONDS: integer("AUTH_FAILURE_WINDOW_SECONDS", 1, 86_400, 60),
  AUTH_UNKNOWN_TOKEN_CACHE_MS: integer("AUTH_UNKNOWN_TOKEN_CACHE_MS", 0, 60_000, 2_000),
  AUTH_KNOWN_TOKEN_TTL_SECONDS: integer("AUTH_KNOWN_TOKEN_TTL_SECONDS", 0, 86_400, 900),
  REDIS_URL: redisUrl,
  REDIS_KEY_PREFIX: keyPrefix,
  REDIS_COMMAND_TIMEOUT_MS: integer("REDIS_COMMAND_TIMEOUT_MS", 10, 60_000, 100),
  TRUST_PROXY: trustProxy,
  SHUTDOWN_TIMEOUT_MS: integer("SHUTDOWN_TIMEOUT_MS", 0, 600_000, 10_000),
  SHUTDOWN_DRAIN_DELAY_MS: integer("SHUTDOWN_DRAIN_DELAY_MS", 0, 600_000, 5_000),
  // Longer than the idle timeouts of common load balancers (AWS ALB 60 s), so the balancer closes first.
  HTTP_KEEP_ALIVE_TIMEOUT_MS: integer("HTTP_KEEP_ALIVE_TIMEOUT_MS", 1_000, 300_000, 65_000),
  HTTP_HEADERS_TIMEOUT_MS: integer("HTTP_HEADERS_TIMEOUT_MS", 1_000, 300_000, 66_000),
  // Node's own default (16 KiB): the request line and every header together.
  HTTP_MAX_HEADER_BYTES: integer("HTTP_MAX_HEADER_BYTES", 1_024, 1_048_576, 16_384),
  REQUEST_TIMEOUT_MS: integer("REQUEST_TIMEOUT_MS", 100, 600_000, 15_000),
  BODY_LIMIT_BYTES: integer("BODY_LIMIT_BYTES", 0, 104_857_600, 102_400),
  CORS_ORIGINS: corsOrigins,
  // Ready-to-send list pages kept in memory (all representations); 0 turns the cache off.
  PAGE_CACHE_BYTES: integer("PAGE_CACHE_BYTES", 0, 1_073_741_824, 16_777_216),
  // Signs cursors and sync tokens (HMAC-SHA256); every replica must share it.
  CURSOR_SECRET: secret("CURSOR_SECRET", 32),
  SYNC_RETENTION_DAYS: integer("SYNC_RETENTION_DAYS", 7, 3_650, 7),
  CHANGE_LOG_SWEEP_INTERVAL_SECONDS: integer("CHANGE_LOG_SWEEP_INTERVAL_SECONDS", 0, 86_400, 3_600),
  CHANGES_WAIT_MAX_PER_TOKEN: integer("CHANGES_WAIT_MAX_PER_TOKEN", 0, 10_000, 4),
  WEBHOOK_ALLOWED_HOSTS: parsedBy(parseAllowedHosts),
  WEBHOOK_RETRY_SCHEDULE: parsedBy(parseRetrySchedule),
  WEBHOOK_DELIVERY: boolean("WEBHOOK_DELIVERY", true),
  WEBHOOK_DELIVERY_CONCURRENCY: integer("WEBHOOK_DELIVERY_CONCURRENCY", 1, 100, 8),
  WEBHOOK_TIMEOUT_MS: integer("WEBHOOK_TIMEOUT_MS", 100, 15_000, 15_000),
  WEBHOOK_PING_TIMEOUT_MS: integer("WEBHOOK_PING_TIMEOUT_MS", 100, 10_000, 10_000),
  WEBHOOK_SUBSCRIPTIONS_MAX: integer("WEBHOOK_SUBSCRIPTIONS_MAX", 1, 1_000, 10),
  WEBHOOK_LOG_RETENTION_DAYS: integer("WEBHOOK_LOG_RETENTION_DAYS", 1, 3_650, 30),
  WEBHOOK_SWEEP_INTERVAL_SECONDS: integer("WEBHOOK_SWEEP_INTERVAL_SECONDS", 1, 3_600, 30),
  WEBHOOK_STALE_LOCK_SECONDS: integer("WEBHOOK_STALE_LOCK_SECONDS", 2, 3_600, 60),
  CALENDAR_FEED_RATE_LIMIT_MAX: integer("CALENDAR_FEED_RATE_LIMIT_MAX", 0, 1_000_000, 60),
  CALENDAR_FEED_RATE_LIMIT_WINDOW_SECONDS: integer("CALENDAR_FEED_RATE_LIMIT_WINDOW_SECONDS", 1, 86_400, 3_600),
  CALENDAR_FEEDS_MAX: integer("CALENDAR_FEEDS_MAX", 1, 1_000, 10),
  ...TracingEnvSchema.shape,
});

export interface WebhooksConfig {
  /** Hosts notices may go to over http and whatever their addresses (WEBHOOK_ALLOWED_HOSTS). */
  allowedHosts: ReadonlySet<string>;
  /** Seconds before each retry of a notice not answered 2xx; its end disables the subscription. */
  retrySchedule: readonly number[];
  /** Whether this replica runs the delivery worker (every replica may; a job is sent by one). */
  delivery: boolean;
  /** Notices this replica sends at once (each receiver's one at a time). */
  concurrency: number;
  /** Longest wait for a receiver's answer to a notice (connect, headers and body). */
  timeoutMs: number;
  /** Longest wait for the answer to the ping that creating a subscription sends. */
  pingTimeoutMs: number;
  /** Subscriptions per user and client. */
  subscriptionsMax: number;
  /** How long finished deliveries stay in the log. */
  logRetentionSeconds: number;
  /** How often every replica sweeps the queue (stale locks, notices without a job, the log). */
  sweepIntervalSeconds: number;
  /** A notice's job locked longer than this belongs to a worker that died; it is given back. */
  staleLockSeconds: number;
}

export interface AppConfig {
  port: number;
  host: string;
  /** Unset: the embedded PostgreSQL (PGlite) in `embeddedDataDir`. */
  databaseUrl: string | undefined;
  /** Set: list pages are read from this database (a streaming replica of databaseUrl's). */
  databaseReadUrl: string | undefined;
  /**
   * Set: the changes feed's LISTEN connection goes here (the primary, directly, when DATABASE_URL
   * names a transaction pooler); unset: to DATABASE_URL.
   */
  databaseListenUrl: string | undefined;
  /** Longest a list read waits for the replica (a connection and the query) before the primary serves it. */
  databaseReadTimeoutMs: number;
  /** The token lookup and the list reads as named statements per connection (see StatementNames in @community/db). */
  databasePreparedStatements: boolean;
  /** Most named statements each database connection keeps (the least recently used is deallocated past it). */
  databasePreparedStatementsMax: number;
  embeddedDataDir: string;
  /**
   * Loopback port on which the embedded database answers other PostgreSQL clients (`pnpm seed`
   * while the api runs); 0: a free port.
   */
  embeddedDbPort: number;
  embeddedSeedDemo: boolean;
  dbPoolMax: number;
  dbConnectTimeoutMs: number;
  dbStatementTimeoutMs: number;
  /** Server-side lock_timeout: a query waiting this long for a lock fails (503) instead of queueing. */
  dbLockTimeoutMs: number;
  /** Consecutive failed connection attempts that open the database circuit breaker. */
  dbBreakerThreshold: number;
  /** While the breaker is open, how often a background connection attempt probes the database. */
  dbBreakerProbeMs: number;
  retryAfterSeconds: number;
  /** How long /health/ready answers from one check's result (probes share it). */
  readinessCacheMs: number;
  problemBaseUrl: string;
  /** OAuth 2: the built-in authorization server and the issuers whose JWT access tokens are accepted. */
  oauth: OAuthConfig;
  logLevel: LogLevel;
  /** Set: GET /metrics requires `Authorization: Bearer <metricsToken>`. */
  metricsToken: string | undefined;
  /** NODE_ENV=production: GET /metrics is served only with a metricsToken (404 without one). */
  production: boolean;
  /** Requests per window and key; 0 turns rate limiting off. */
  rateLimitMax: number;
  rateLimitWindowSeconds: number;
  /** Failed bearer authentications one client address may make per window before 429 (0: no limit). */
  authFailureLimit: number;
  authFailureWindowSeconds: number;
  /** How long a token hash that matched no valid token is answered 401 without a lookup (0: never). */
  authUnknownTokenCacheMs: number;
  /**
   * How long after its last success a token still passes an address refused for failed
   * authentications (it is checked as usual; 0: every token from a refused address is refused).
   */
  authKnownTokenTtlSeconds: number;
  /** Set: rate-limit counters live in Redis, shared by every replica; unset: in process memory. */
  redisUrl: string | undefined;
  redisKeyPrefix: string;
  /** A Redis command not answered within this is given up (the request is served unlimited). */
  redisCommandTimeoutMs: number;
  trustProxy: TrustProxy;
  shutdownTimeoutMs: number;
  /** On SIGTERM: how long /health/ready answers 503 while requests are still served, before closing. */
  shutdownDrainDelayMs: number;
  /** The HTTP server's idle keep-alive timeout; longer than the load balancer's idle timeout. */
  httpKeepAliveTimeoutMs: number;
  /** How long a client may take to send request headers; greater than httpKeepAliveTimeoutMs. */
  httpHeadersTimeoutMs: number;
  /** Largest request head (request line and headers) read; a larger one gets 431. */
  httpMaxHeaderBytes: number;
  requestTimeoutMs: number;
  bodyLimitBytes: number;
  /** Empty: CORS off (no Access-Control-* headers). */
  corsOrigins: string[];
  /** Bytes of list pages (identity, gzip and br bodies) kept in memory; 0: no page cache. */
  pageCacheBytes: number;
  /** Unset: tracing is off and no OpenTelemetry SDK module is loaded. */
  tracing: TracingConfig | undefined;
  /** Cursor walks and the change feed (contract section 9). */
  sync: SyncConfig;
  /** Webhooks (contract 10.2): where notices may go, how they are retried, who sends them. */
  webhooks: WebhooksConfig;
  /** Calendar feeds (contract 11): the per-feed rate limit and the feeds per user. */
  calendarFeeds: CalendarFeedsConfig;
}

export interface CalendarFeedsConfig {
  /** Fetches of one feed per window (CALENDAR_FEED_RATE_LIMIT_MAX; 0: no per-feed limit). */
  rateLimitMax: number;
  rateLimitWindowSeconds: number;
  /** Feeds one user may hold (CALENDAR_FEEDS_MAX). */
  feedsMax: number;
}

export interface SyncConfig {
  /** HMAC key of cursors and sync tokens: CURSOR_SECRET, or random bytes made at start (one process only). */
  secret: Buffer;
  /** Whether the secret was generated at start (then no other process can read this one's cursors). */
  secretGenerated: boolean;
  /** How long changes stay in the log; an older sync token is expired (410). */
  retentionSeconds: number;
  /** How often the change log is swept of entries past the retention; 0: never. */
  sweepIntervalSeconds: number;
  /** Most changes requests held at once (`wait`) per access token on this replica; 0: none is held. */
  waitMaxPerToken: number;
}

export interface TracingConfig {
  /** Where spans are sent: OTLP over HTTP with JSON bodies. */
  url: string;
  serviceName: string;
  /** Whether a caller's sampling decision (traceparent's sampled flag) is followed. */
  parentBased: boolean;
  /** The share of the other traces that is recorded, from 0 to 1. */
  ratio: number;
  /** How long finished spans wait to be sent in one batch (ms). */
  batchDelayMs: number;
}

export interface OAuthConfig {
  /** The api's base URL as browsers reach it (PUBLIC_URL, default http://localhost:PORT). */
  publicUrl: string;
  /** Set when the built-in authorization server runs (mounted under /oauth) and its tokens are accepted. */
  builtIn: { issuer: string; audience: string } | undefined;
  /** An external identity provider whose access tokens are accepted too. */
  external:
    | {
        issuer: string;
        audience: string;
        jwksUri: string | undefined;
        allowJwtTyp: boolean;
        /** "local": its `sub` is a users.id, the namespace shared with the built-in server's users. */
        subjects: "local";
      }
    | undefined;
  /** Least time between two fetches of the external issuer's metadata or JWKS, failed ones included. */
  jwksCooldownSeconds: number;
  /** The longest wait for the external issuer's discovery and JWKS together. */
  issuerTimeoutMs: number;
  clockSkewSeconds: number;
  /** A JWT whose `exp` is further than this from its `iat` (or from now) is refused. */
  maxTokenLifetimeSeconds: number;
  /** How often every replica rereads the built-in server's keys (retired and new ones). */
  keysReloadSeconds: number;
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  codeTtlSeconds: number;
  /** Lifetime of the sign-in session (the browser's cookie at the authorization server). */
  sessionTtlSeconds: number;
  /** Sign-in attempts: per account and client address (progressive lockout) and per address. */
  loginLimit: LoginLimitConfig;
  /** Requests per client address and window to /oauth/auth and to /oauth/token; max 0 turns it off. */
  endpointLimit: { max: number; windowSeconds: number };
  /** Deletion of expired `oauth_payloads` rows: every intervalSeconds (0: never), batchSize rows at a time. */
  sweep: { intervalSeconds: number; batchSize: number };
  /** Set: private signing keys and cookie secrets are stored encrypted (AES-256-GCM) with this key. */
  keyEncryptionKey: Buffer | undefined;
}

export interface LoginLimitConfig {
  /** Attempts per account and address in the first window; 0 turns the account limit off. */
  attempts: number;
  windowSeconds: number;
  /** Longest lockout of the progressive tiers (each tier: 4 times the window, one more `attempts`). */
  maxLockoutSeconds: number;
  /** Attempts per client address and window, whatever the account; 0 turns it off. */
  addressMax: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

/** The tracing settings from parsed variables; undefined while no exporter is configured. */
function tracingConfig(e: z.infer<typeof TracingEnvSchema>): TracingConfig | undefined {
  const endpoint = e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? e.OTEL_EXPORTER_OTLP_ENDPOINT;
  const exporter = e.OTEL_TRACES_EXPORTER ?? (endpoint === undefined ? "none" : "otlp");
  if (exporter === "none") return undefined;
  const sampler = e.OTEL_TRACES_SAMPLER ?? "parentbased_always_on";
  return {
    url:
      e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ??
      `${(e.OTEL_EXPORTER_OTLP_ENDPOINT ?? "http://localhost:4318").replace(/\/+$/, "")}/v1/traces`,
    serviceName: e.OTEL_SERVICE_NAME,
    parentBased: sampler.startsWith("parentbased_"),
    ratio: sampler.endsWith("always_on") ? 1 : sampler.endsWith("always_off") ? 0 : e.OTEL_TRACES_SAMPLER_ARG,
    batchDelayMs: e.OTEL_BSP_SCHEDULE_DELAY,
  };
}

/**
 * Only the tracing settings, for the module that starts tracing before anything else loads:
 * undefined when tracing is off or a tracing variable is invalid (loadConfig then reports it).
 */
export function loadTracingConfig(env: NodeJS.ProcessEnv): TracingConfig | undefined {
  const parsed = TracingEnvSchema.safeParse(env);
  return parsed.success ? tracingConfig(parsed.data) : undefined;
}

export function loadConfig(env: NodeJS.ProcessEnv): AppConfig {
  const parsed = EnvSchema.safeParse(readFileVariables(env));
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => issue.message));
  }
  const e = parsed.data;
  if ((e.OAUTH_ISSUER === undefined) !== (e.OAUTH_AUDIENCE === undefined)) {
    throw new ConfigError([
      "OAUTH_ISSUER and OAUTH_AUDIENCE go together: set both to accept an external issuer's tokens, or neither",
    ]);
  }
  if (e.OAUTH_JWKS_URI !== undefined && e.OAUTH_ISSUER === undefined) {
    throw new ConfigError(["OAUTH_JWKS_URI needs OAUTH_ISSUER and OAUTH_AUDIENCE"]);
  }
  if (e.DATABASE_READ_URL !== undefined && e.DATABASE_URL === undefined) {
    throw new ConfigError(["DATABASE_READ_URL needs DATABASE_URL: it names a replica of that database"]);
  }
  if (e.DATABASE_LISTEN_URL !== undefined && e.DATABASE_URL === undefined) {
    throw new ConfigError([
      "DATABASE_LISTEN_URL needs DATABASE_URL: it names a direct connection to that database's primary",
    ]);
  }
  if (e.WEBHOOK_STALE_LOCK_SECONDS * 1000 <= e.WEBHOOK_TIMEOUT_MS) {
    throw new ConfigError([
      `WEBHOOK_STALE_LOCK_SECONDS (${e.WEBHOOK_STALE_LOCK_SECONDS}) must be longer than WEBHOOK_TIMEOUT_MS (${e.WEBHOOK_TIMEOUT_MS} ms): a notice's job locked that long would be given back while its attempt still runs`,
    ]);
  }
  if (e.HTTP_HEADERS_TIMEOUT_MS <= e.HTTP_KEEP_ALIVE_TIMEOUT_MS) {
    throw new ConfigError([
      `HTTP_HEADERS_TIMEOUT_MS (${e.HTTP_HEADERS_TIMEOUT_MS}) must be greater than HTTP_KEEP_ALIVE_TIMEOUT_MS (${e.HTTP_KEEP_ALIVE_TIMEOUT_MS}), or a reused connection can be cut while its next request's headers arrive`,
    ]);
  }
  if (e.OAUTH_ISSUER !== undefined && e.AUTH_SERVER && e.OAUTH_EXTERNAL_SUBJECTS === undefined) {
    throw new ConfigError([
      `OAUTH_ISSUER is set while the built-in authorization server is on (AUTH_SERVER): a subject is unique only within its issuer, so ${e.OAUTH_ISSUER}'s sub cannot name a local user unless you declare OAUTH_EXTERNAL_SUBJECTS=local (its sub is a users.id), or set AUTH_SERVER=false`,
    ]);
  }
  if (e.OAUTH_EXTERNAL_SUBJECTS !== undefined && e.OAUTH_ISSUER === undefined) {
    throw new ConfigError(["OAUTH_EXTERNAL_SUBJECTS needs OAUTH_ISSUER and OAUTH_AUDIENCE"]);
  }
  if (e.OAUTH_MAX_TOKEN_LIFETIME_SECONDS < e.OAUTH_ACCESS_TOKEN_TTL_SECONDS) {
    throw new ConfigError([
      `OAUTH_MAX_TOKEN_LIFETIME_SECONDS (${e.OAUTH_MAX_TOKEN_LIFETIME_SECONDS}) must be at least OAUTH_ACCESS_TOKEN_TTL_SECONDS (${e.OAUTH_ACCESS_TOKEN_TTL_SECONDS}), or the built-in server's own tokens are refused`,
    ]);
  }
  // The embedded demo runs alone, so a secret of its own is enough; a deployment runs replicas
  // that must read each other's cursors and tokens.
  if (e.CURSOR_SECRET === undefined && e.NODE_ENV === "production" && e.DATABASE_URL !== undefined) {
    throw new ConfigError([
      "CURSOR_SECRET is required when NODE_ENV=production and DATABASE_URL is set: every replica signs and checks cursors and sync tokens with it (openssl rand -base64 32)",
    ]);
  }
  const publicUrl = (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, "");
  return {
    port: e.PORT,
    host: e.HOST ?? (e.DATABASE_URL === undefined ? "127.0.0.1" : "0.0.0.0"),
    databaseUrl: e.DATABASE_URL,
    databaseReadUrl: e.DATABASE_READ_URL,
    databaseListenUrl: e.DATABASE_LISTEN_URL,
    databaseReadTimeoutMs: e.DATABASE_READ_TIMEOUT_MS,
    databasePreparedStatements: e.DATABASE_PREPARED_STATEMENTS,
    databasePreparedStatementsMax: e.DATABASE_PREPARED_STATEMENTS_MAX,
    embeddedDataDir: e.EMBEDDED_DATA_DIR,
    embeddedDbPort: e.EMBEDDED_DB_PORT,
    embeddedSeedDemo: e.EMBEDDED_SEED_DEMO,
    dbPoolMax: e.DB_POOL_MAX,
    dbConnectTimeoutMs: e.DB_CONNECT_TIMEOUT_MS,
    dbStatementTimeoutMs: e.DB_STATEMENT_TIMEOUT_MS,
    dbLockTimeoutMs: e.DB_LOCK_TIMEOUT_MS,
    dbBreakerThreshold: e.DB_BREAKER_THRESHOLD,
    dbBreakerProbeMs: e.DB_BREAKER_PROBE_MS,
    retryAfterSeconds: e.RETRY_AFTER_SECONDS,
    readinessCacheMs: e.READINESS_CACHE_MS,
    problemBaseUrl: e.PROBLEM_BASE_URL,
    oauth: {
      publicUrl,
      builtIn: e.AUTH_SERVER ? { issuer: `${publicUrl}/oauth`, audience: publicUrl } : undefined,
      external:
        e.OAUTH_ISSUER !== undefined && e.OAUTH_AUDIENCE !== undefined
          ? {
              issuer: e.OAUTH_ISSUER,
              audience: e.OAUTH_AUDIENCE,
              jwksUri: e.OAUTH_JWKS_URI,
              allowJwtTyp: e.OAUTH_ALLOW_JWT_TYP,
              subjects: "local",
            }
          : undefined,
      jwksCooldownSeconds: e.OAUTH_JWKS_COOLDOWN_SECONDS,
      issuerTimeoutMs: e.OAUTH_ISSUER_TIMEOUT_MS,
      clockSkewSeconds: e.OAUTH_CLOCK_SKEW_SECONDS,
      maxTokenLifetimeSeconds: e.OAUTH_MAX_TOKEN_LIFETIME_SECONDS,
      keysReloadSeconds: e.OAUTH_KEYS_RELOAD_SECONDS,
      sessionTtlSeconds: e.OAUTH_SESSION_TTL_SECONDS,
      accessTokenTtlSeconds: e.OAUTH_ACCESS_TOKEN_TTL_SECONDS,
      refreshTokenTtlSeconds: e.OAUTH_REFRESH_TOKEN_TTL_SECONDS,
      codeTtlSeconds: e.OAUTH_CODE_TTL_SECONDS,
      loginLimit: {
        attempts: e.LOGIN_RATE_LIMIT_ATTEMPTS,
        windowSeconds: e.LOGIN_RATE_LIMIT_WINDOW_SECONDS,
        maxLockoutSeconds: e.LOGIN_RATE_LIMIT_MAX_LOCKOUT_SECONDS,
        addressMax: e.LOGIN_RATE_LIMIT_ADDRESS_MAX,
      },
      endpointLimit: { max: e.OAUTH_RATE_LIMIT_MAX, windowSeconds: e.OAUTH_RATE_LIMIT_WINDOW_SECONDS },
      sweep: { intervalSeconds: e.OAUTH_SWEEP_INTERVAL_SECONDS, batchSize: e.OAUTH_SWEEP_BATCH_SIZE },
      keyEncryptionKey: e.OAUTH_KEY_ENCRYPTION_KEY,
    },
    logLevel: e.LOG_LEVEL,
    metricsToken: e.METRICS_TOKEN,
    production: e.NODE_ENV === "production",
    rateLimitMax: e.RATE_LIMIT_MAX,
    rateLimitWindowSeconds: e.RATE_LIMIT_WINDOW_SECONDS,
    authFailureLimit: e.AUTH_FAILURE_LIMIT,
    authFailureWindowSeconds: e.AUTH_FAILURE_WINDOW_SECONDS,
    authUnknownTokenCacheMs: e.AUTH_UNKNOWN_TOKEN_CACHE_MS,
    authKnownTokenTtlSeconds: e.AUTH_KNOWN_TOKEN_TTL_SECONDS,
    redisUrl: e.REDIS_URL,
    redisKeyPrefix: e.REDIS_KEY_PREFIX,
    redisCommandTimeoutMs: e.REDIS_COMMAND_TIMEOUT_MS,
    trustProxy: e.TRUST_PROXY,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    shutdownDrainDelayMs: e.SHUTDOWN_DRAIN_DELAY_MS,
    httpKeepAliveTimeoutMs: e.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    httpHeadersTimeoutMs: e.HTTP_HEADERS_TIMEOUT_MS,
    httpMaxHeaderBytes: e.HTTP_MAX_HEADER_BYTES,
    requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    corsOrigins: e.CORS_ORIGINS,
    pageCacheBytes: e.PAGE_CACHE_BYTES,
    tracing: tracingConfig(e),
    sync: {
      secret: e.CURSOR_SECRET === undefined ? randomBytes(32) : Buffer.from(e.CURSOR_SECRET),
      secretGenerated: e.CURSOR_SECRET === undefined,
      retentionSeconds: e.SYNC_RETENTION_DAYS * 86_400,
      sweepIntervalSeconds: e.CHANGE_LOG_SWEEP_INTERVAL_SECONDS,
      waitMaxPerToken: e.CHANGES_WAIT_MAX_PER_TOKEN,
    },
    webhooks: {
      allowedHosts: e.WEBHOOK_ALLOWED_HOSTS,
      retrySchedule: e.WEBHOOK_RETRY_SCHEDULE,
      delivery: e.WEBHOOK_DELIVERY,
      concurrency: e.WEBHOOK_DELIVERY_CONCURRENCY,
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      pingTimeoutMs: e.WEBHOOK_PING_TIMEOUT_MS,
      subscriptionsMax: e.WEBHOOK_SUBSCRIPTIONS_MAX,
      logRetentionSeconds: e.WEBHOOK_LOG_RETENTION_DAYS * 86_400,
      sweepIntervalSeconds: e.WEBHOOK_SWEEP_INTERVAL_SECONDS,
      staleLockSeconds: e.WEBHOOK_STALE_LOCK_SECONDS,
    },
    calendarFeeds: {
      rateLimitMax: e.CALENDAR_FEED_RATE_LIMIT_MAX,
      rateLimitWindowSeconds: e.CALENDAR_FEED_RATE_LIMIT_WINDOW_SECONDS,
      feedsMax: e.CALENDAR_FEEDS_MAX,
    },
  };
}

export const APP_CONFIG = Symbol("APP_CONFIG");
