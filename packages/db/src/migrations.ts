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
  /** Shipped migrations that the database has not applied. */
  pending: string[];
  /** Migrations that started and failed, which `prisma migrate deploy` refuses to pass. */
  failed: string[];
}

/** Compares the shipped migrations with Prisma's `_prisma_migrations` bookkeeping table. */
export async function migrationState(pool: Pool, dir: string = MIGRATIONS_DIR): Promise<MigrationState> {
  const shipped = listMigrations(dir);
  const table = await pool.query<{ exists: boolean }>("SELECT to_regclass('_prisma_migrations') IS NOT NULL AS exists");
  if (!table.rows[0]?.exists) {
    return { pending: shipped, failed: [] };
  }
  const rows = await pool.query<{ migration_name: string; finished: boolean }>(
    `SELECT migration_name, finished_at IS NOT NULL AS finished
       FROM _prisma_migrations WHERE rolled_back_at IS NULL`,
  );
  const applied = new Set(rows.rows.filter((r) => r.finished).map((r) => r.migration_name));
  return {
    pending: shipped.filter((name) => !applied.has(name)),
    failed: rows.rows.filter((r) => !r.finished).map((r) => r.migration_name),
  };
}

/**
 * Applies pending migrations with `prisma migrate deploy` (the WASM schema engine through the
 * pg driver adapter, see prisma.config.ts). Output goes to the given stream; rejects with the
 * CLI's output when it fails.
 */
export function migrateDeploy(url: string, options: { quiet?: boolean } = {}): Promise<void> {
  const cli = require.resolve("prisma/build/index.js", { paths: [PACKAGE_DIR] });
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, "migrate", "deploy"], {
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
