import { createHash, randomUUID } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { Client, type Pool } from "pg";
import { isEmbeddedDatabaseUrl } from "./embedded";

/** prisma/migrations at the root of the workspace (the same depth from src/ and dist/). */
export const MIGRATIONS_DIR = path.resolve(__dirname, "../../../prisma/migrations");

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
  /** Migrations that started and failed, which `migrateDeploy` (like `prisma migrate deploy`) refuses to pass. */
  failed: string[];
  /** Migrations that `prisma migrate deploy` is applying right now (shipped with this build or not). */
  inProgress: string[];
}

/**
 * The advisory lock that `prisma migrate deploy` holds on its database for the whole of its run
 * (Prisma's fixed key); `migrateDeploy` below takes the same one, so the two exclude each other.
 */
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

/** Prisma's own bookkeeping table, created as `prisma migrate deploy` creates it. */
const CREATE_BOOKKEEPING = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

/** Prisma's checksum of a migration: the SHA-256 (hex) of its migration.sql as stored. */
export function migrationChecksum(sql: Buffer | string): string {
  return createHash("sha256").update(sql).digest("hex");
}

export class MigrationError extends Error {
  override name = "MigrationError";
}

/**
 * Marks a failed migration as rolled back, as `prisma migrate resolve --rolled-back` does (that
 * command has no engine here), once its partial changes have been undone by hand; the next
 * `migrateDeploy` then applies it again.
 */
export async function markRolledBack(url: string, name: string): Promise<void> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    const result = await client.query(
      `UPDATE _prisma_migrations SET rolled_back_at = now()
        WHERE migration_name = $1 AND finished_at IS NULL AND rolled_back_at IS NULL`,
      [name],
    );
    if (result.rowCount === 0) throw new MigrationError(`no failed migration named ${name} to mark as rolled back`);
  } finally {
    await client.end();
  }
}

/**
 * Applies the pending migrations of `dir` the way `prisma migrate deploy` does, over node-postgres:
 * under Prisma's advisory lock, oldest first, each script as one simple query (not wrapped in a
 * transaction, as Prisma runs them), recorded in `_prisma_migrations` with Prisma's checksum,
 * timestamps, step count and, for a failure, its logs. `prisma migrate status` reads the result as
 * its own. A failed or edited migration stops the run, as Prisma's deploy does. Returns the names
 * it applied.
 */
export async function migrateDeploy(
  url: string,
  options: { quiet?: boolean; dir?: string; log?: (line: string) => void } = {},
): Promise<string[]> {
  const dir = options.dir ?? MIGRATIONS_DIR;
  const log = options.log ?? ((line: string) => (options.quiet ? undefined : process.stderr.write(`${line}\n`)));
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await client.connect();
  const done: string[] = [];
  try {
    await client.query("SELECT pg_advisory_lock($1)", [PRISMA_MIGRATE_LOCK_KEY]);
    await client.query(CREATE_BOOKKEEPING);
    const rows = await client.query<{ migration_name: string; checksum: string; finished: boolean }>(
      `SELECT migration_name, checksum, finished_at IS NOT NULL AS finished
         FROM _prisma_migrations WHERE rolled_back_at IS NULL ORDER BY started_at`,
    );
    const failed = rows.rows.filter((r) => !r.finished).map((r) => r.migration_name);
    if (failed.length > 0) {
      throw new MigrationError(
        `migration(s) ${failed.join(", ")} failed earlier: resolve them first (docs/database.md, "A failed migration")`,
      );
    }
    const applied = new Map(rows.rows.map((r) => [r.migration_name, r.checksum]));
    for (const name of listMigrations(dir)) {
      const sql = readFileSync(path.join(dir, name, "migration.sql"));
      const checksum = migrationChecksum(sql);
      const previous = applied.get(name);
      if (previous !== undefined) {
        if (previous !== checksum) {
          throw new MigrationError(
            `migration ${name} was edited after it was applied (checksum ${previous} in the database, ${checksum} on disk): restore it and add a new migration instead`,
          );
        }
        continue;
      }
      const id = randomUUID();
      await client.query(
        "INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at) VALUES ($1, $2, $3, now())",
        [id, checksum, name],
      );
      try {
        await client.query(sql.toString("utf8"));
      } catch (error) {
        const message = (error as Error).message;
        await client.query("UPDATE _prisma_migrations SET logs = $2 WHERE id = $1", [id, message]);
        throw new MigrationError(`migration ${name} failed: ${message}`);
      }
      await client.query(
        "UPDATE _prisma_migrations SET finished_at = now(), applied_steps_count = applied_steps_count + 1 WHERE id = $1",
        [id],
      );
      log(`applied ${name}`);
      done.push(name);
    }
  } finally {
    await client.query("SELECT pg_advisory_unlock_all()").catch(() => undefined);
    await client.end();
  }
  if (!isEmbeddedDatabaseUrl(url)) await migrateJobQueue(url);
  return done;
}

type GraphileWorker = typeof import("graphile-worker", { with: { "resolution-mode": "import" }});

/**
 * The webhooks' job queue: graphile-worker's own schema (`graphile_worker`), installed or brought
 * up to the version the api uses by its own migrations (under its own advisory lock), with ours.
 * Its workers would do it at their first start otherwise, while the lists' commits already call
 * into it (the notices' trigger): a schema being replaced under a commit fails nothing (the
 * trigger leaves the job to the api's sweep), but delays that commit's notice. Not on the embedded
 * database, which carries no queue.
 */
async function migrateJobQueue(url: string): Promise<void> {
  const { runMigrations, Logger } = (await import("graphile-worker")) as GraphileWorker;
  await runMigrations({ connectionString: url, logger: new Logger(() => () => undefined) });
}
