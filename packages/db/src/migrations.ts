import { spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import type { Pool } from "pg";

/** prisma/migrations at the root of the workspace (the same depth from src/ and dist/). */
export const MIGRATIONS_DIR = path.resolve(__dirname, "../../../prisma/migrations");

const PACKAGE_DIR = path.resolve(__dirname, "..");

/** Names of the migrations that ship with this build, oldest first. */
export function listMigrations(dir: string = MIGRATIONS_DIR): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(path.join(dir, entry.name, "migration.sql")))
    .map((entry) => entry.name)
    .sort();
}

export interface MigrationState {
  /** Shipped migrations that the database has not applied (one being applied right now included). */
  pending: string[];
  /** Migrations that started and failed, which `prisma migrate deploy` refuses to pass. */
  failed: string[];
  /** Migrations that `prisma migrate deploy` is applying right now (shipped with this build or not). */
  inProgress: string[];
}

/** The advisory lock that `prisma migrate deploy` holds on its database for the whole of its run (Prisma's fixed key). */
export const PRISMA_MIGRATE_LOCK_KEY = 72707369;

/**
 * Compares the shipped migrations with Prisma's `_prisma_migrations` bookkeeping table. Prisma
 * writes a migration's row (`started_at`, no `finished_at`, no `logs`) before it runs the SQL, sets
 * `finished_at` after, and writes the error into `logs` when the SQL fails. So an unfinished row is
 * a failure only when it has logs, or when no `migrate deploy` holds its lock any more (the run
 * was killed); otherwise the migration is in progress, which is not a fault of the database.
 */
export async function migrationState(pool: Pool, dir: string = MIGRATIONS_DIR): Promise<MigrationState> {
  const shipped = listMigrations(dir);
  const table = await pool.query<{ exists: boolean }>("SELECT to_regclass('_prisma_migrations') IS NOT NULL AS exists");
  if (!table.rows[0]?.exists) {
    return { pending: shipped, failed: [], inProgress: [] };
  }
  const { rows } = await pool.query<{ migration_name: string; state: "finished" | "failed" | "running" }>(
    `SELECT m.migration_name,
            CASE WHEN m.finished_at IS NOT NULL THEN 'finished'
                 WHEN m.logs IS NOT NULL OR NOT migrating.held THEN 'failed'
                 ELSE 'running' END AS state
       FROM _prisma_migrations m,
            LATERAL (SELECT EXISTS (
              SELECT 1 FROM pg_locks l
               WHERE l.locktype = 'advisory' AND l.granted
                 AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                 AND l.classid = 0 AND l.objid = $1 AND l.objsubid = 1) AS held) migrating
      WHERE m.rolled_back_at IS NULL`,
    [PRISMA_MIGRATE_LOCK_KEY],
  );
  const named = (state: string) => rows.filter((r) => r.state === state).map((r) => r.migration_name);
  const applied = new Set(named("finished"));
  return {
    pending: shipped.filter((name) => !applied.has(name)),
    failed: named("failed"),
    inProgress: named("running"),
  };
}

/**
 * Applies pending migrations with `prisma migrate deploy` (the WASM schema engine through the
 * pg driver adapter, see prisma.config.ts), from `schema`'s folder when given. Output goes to the given stream; rejects with the
 * CLI's output when it fails.
 */
export function migrateDeploy(url: string, options: { quiet?: boolean; schema?: string } = {}): Promise<void> {
  const cli = require.resolve("prisma/build/index.js", { paths: [PACKAGE_DIR] });
  // Another schema file brings its own migrations folder beside it (tests of a later release).
  const schema = options.schema === undefined ? [] : ["--schema", options.schema];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, "migrate", "deploy", ...schema], {
      cwd: PACKAGE_DIR,
      env: { ...process.env, DATABASE_URL: url, CHECKPOINT_DISABLE: "1", PRISMA_HIDE_UPDATE_MESSAGE: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
      if (!options.quiet) process.stderr.write(chunk);
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) resolve();
      else reject(new Error(`prisma migrate deploy exited with code ${code}:\n${output.trim()}`));
    });
  });
}
