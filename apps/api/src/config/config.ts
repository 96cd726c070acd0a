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
  };
}

export const APP_CONFIG = Symbol("APP_CONFIG");
