import path from "node:path";
import { z } from "zod";

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

const postgresUrl = z
  .string()
  .optional()
  .transform((raw, ctx) => {
    if (raw === undefined || raw === "") return undefined;
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      ctx.addIssue({ code: "custom", message: "DATABASE_URL must be a postgresql:// URL" });
      return z.NEVER;
    }
    if (url.protocol !== "postgresql:" && url.protocol !== "postgres:") {
      ctx.addIssue({ code: "custom", message: `DATABASE_URL must use postgresql://, got ${url.protocol}//` });
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

const optionalHttpUrl = (name: string) =>
  z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw === "") return undefined;
      try {
        const url = new URL(raw);
        if (url.protocol === "https:" || url.protocol === "http:") return raw;
      } catch {
        // reported below
      }
      ctx.addIssue({ code: "custom", message: `${name} must be an absolute http(s) URL, got "${raw}"` });
      return z.NEVER;
    });

/** Every environment variable the api reads, with its default. README's table mirrors this. */
const EnvSchema = z.object({
  PORT: integer("PORT", 0, 65535, 3000),
  HOST: z
    .string()
    .optional()
    .transform((v) => v || "0.0.0.0"),
  DATABASE_URL: postgresUrl,
  EMBEDDED_DATA_DIR: z
    .string()
    .optional()
    .transform((v) => path.resolve(WORKSPACE_ROOT, v || ".data/pglite")),
  EMBEDDED_SEED_DEMO: boolean("EMBEDDED_SEED_DEMO", true),
  DB_POOL_MAX: integer("DB_POOL_MAX", 1, 1000, 10),
  DB_CONNECT_TIMEOUT_MS: integer("DB_CONNECT_TIMEOUT_MS", 100, 600_000, 2_000),
  DB_STATEMENT_TIMEOUT_MS: integer("DB_STATEMENT_TIMEOUT_MS", 100, 3_600_000, 5_000),
  RETRY_AFTER_SECONDS: integer("RETRY_AFTER_SECONDS", 1, 3_600, 5),
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
  OAUTH_JWKS_COOLDOWN_SECONDS: integer("OAUTH_JWKS_COOLDOWN_SECONDS", 0, 3_600, 30),
  OAUTH_CLOCK_SKEW_SECONDS: integer("OAUTH_CLOCK_SKEW_SECONDS", 0, 300, 30),
  OAUTH_ACCESS_TOKEN_TTL_SECONDS: integer("OAUTH_ACCESS_TOKEN_TTL_SECONDS", 10, 86_400, 600),
  OAUTH_REFRESH_TOKEN_TTL_SECONDS: integer("OAUTH_REFRESH_TOKEN_TTL_SECONDS", 60, 31_536_000, 1_209_600),
  OAUTH_CODE_TTL_SECONDS: integer("OAUTH_CODE_TTL_SECONDS", 1, 600, 60),
});

export interface AppConfig {
  port: number;
  host: string;
  /** Unset: the embedded PostgreSQL (PGlite) in `embeddedDataDir`. */
  databaseUrl: string | undefined;
  embeddedDataDir: string;
  embeddedSeedDemo: boolean;
  dbPoolMax: number;
  dbConnectTimeoutMs: number;
  dbStatementTimeoutMs: number;
  retryAfterSeconds: number;
  problemBaseUrl: string;
  /** OAuth 2: the built-in authorization server and the issuers whose JWT access tokens are accepted. */
  oauth: OAuthConfig;
}

export interface OAuthConfig {
  /** The api's base URL as browsers reach it (PUBLIC_URL, default http://localhost:PORT). */
  publicUrl: string;
  /** Set when the built-in authorization server runs (mounted under /oauth) and its tokens are accepted. */
  builtIn: { issuer: string; audience: string } | undefined;
  /** An external identity provider whose access tokens are accepted too. */
  external: { issuer: string; audience: string; jwksUri: string | undefined; allowJwtTyp: boolean } | undefined;
  jwksCooldownSeconds: number;
  clockSkewSeconds: number;
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  codeTtlSeconds: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

export function loadConfig(env: NodeJS.ProcessEnv): AppConfig {
  const parsed = EnvSchema.safeParse(env);
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
  const publicUrl = (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, "");
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    embeddedDataDir: e.EMBEDDED_DATA_DIR,
    embeddedSeedDemo: e.EMBEDDED_SEED_DEMO,
    dbPoolMax: e.DB_POOL_MAX,
    dbConnectTimeoutMs: e.DB_CONNECT_TIMEOUT_MS,
    dbStatementTimeoutMs: e.DB_STATEMENT_TIMEOUT_MS,
    retryAfterSeconds: e.RETRY_AFTER_SECONDS,
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
            }
          : undefined,
      jwksCooldownSeconds: e.OAUTH_JWKS_COOLDOWN_SECONDS,
      clockSkewSeconds: e.OAUTH_CLOCK_SKEW_SECONDS,
      accessTokenTtlSeconds: e.OAUTH_ACCESS_TOKEN_TTL_SECONDS,
      refreshTokenTtlSeconds: e.OAUTH_REFRESH_TOKEN_TTL_SECONDS,
      codeTtlSeconds: e.OAUTH_CODE_TTL_SECONDS,
    },
  };
}

export const APP_CONFIG = Symbol("APP_CONFIG");
