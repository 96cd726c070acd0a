import { createHash, randomUUID } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Client, Pool } from "pg";
import { isEmbeddedDatabaseUrl } from "./embedded";
import { standaloneClient } from "./standalone-client";

/** prisma/migrations at the root of the workspace (the same depth from src/ and dist/). */
export const MIGRATIONS_DIR = path.resolve(__dirname, "../../../prisma/migrations");

/**
 * prisma/repeatable: one file per function (or other `CREATE OR REPLACE` object), applied after the
 * migrations whenever its checksum changes, as Flyway's repeatable migrations are (docs/database.md,
 * "Functions").
 */
export const REPEATABLE_DIR = path.resolve(__dirname, "../../../prisma/repeatable");

/** Migrations rewritten after they shipped, with the checksums they had before (the file says why). */
export const REWRITTEN_MIGRATIONS_FILE = path.resolve(__dirname, "../../../prisma/rewritten-migrations.json");

/** How a repeatable file is named among pending and applied migrations. */
const REPEATABLE_PREFIX = "repeatable/";

/** Names of the migrations that ship with this build, oldest first. */
export function listMigrations(dir: string = MIGRATIONS_DIR): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(path.join(dir, entry.name, "migration.sql")))
    .map((entry) => entry.name)
    .sort();
}

/** The repeatable files that ship with this build, in the order they are applied (by name). */
export function listRepeatables(dir: string = REPEATABLE_DIR): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".sql"))
    .map((entry) => entry.name)
    .sort();
}

/** The former checksums of each rewritten migration (prisma/rewritten-migrations.json). */
export function rewrittenMigrations(file: string = REWRITTEN_MIGRATIONS_FILE): Map<string, string[]> {
  if (!existsSync(file)) return new Map();
  const { migrations } = JSON.parse(readFileSync(file, "utf8")) as { migrations: Record<string, string[]> };
  return new Map(Object.entries(migrations));
}

/** The repeatable files of `dir` whose checksum the database has not recorded (all of them on a new database). */
async function pendingRepeatables(
  db: Pick<Pool, "query">,
  dir: string,
): Promise<{ name: string; sql: string; checksum: string }[]> {
  const table = await db.query<{ exists: boolean }>(
    "SELECT to_regclass('_repeatable_migrations') IS NOT NULL AS exists",
  );
  const recorded = new Map<string, string>();
  if (table.rows[0]?.exists) {
    const { rows } = await db.query<{ name: string; checksum: string }>(
      "SELECT name, checksum FROM _repeatable_migrations",
    );
    for (const row of rows) recorded.set(row.name, row.checksum);
  }
  return listRepeatables(dir)
    .map((name) => {
      const sql = readFileSync(path.join(dir, name));
      return { name, sql: sql.toString("utf8"), checksum: migrationChecksum(sql) };
    })
    .filter((file) => recorded.get(file.name) !== file.checksum);
}

export interface MigrationState {
  /**
   * Shipped migrations that the database has not applied (one being applied right now included),
   * then the repeatable files whose current text it has not applied (`repeatable/<file>`).
   */
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
export async function migrationState(
  pool: Pool,
  dir: string = MIGRATIONS_DIR,
  repeatableDir: string = REPEATABLE_DIR,
): Promise<MigrationState> {
  const shipped = listMigrations(dir);
  const repeatables = (await pendingRepeatables(pool, repeatableDir)).map((file) => REPEATABLE_PREFIX + file.name);
  const table = await pool.query<{ exists: boolean }>("SELECT to_regclass('_prisma_migrations') IS NOT NULL AS exists");
  if (!table.rows[0]?.exists) {
    return { pending: [...shipped, ...repeatables], failed: [], inProgress: [] };
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
    pending: [...shipped.filter((name) => !applied.has(name)), ...repeatables],
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

/** Which repeatable file, by its checksum, the database last applied. */
const CREATE_REPEATABLE_BOOKKEEPING = `CREATE TABLE IF NOT EXISTS "_repeatable_migrations" (
    "name"        TEXT PRIMARY KEY,
    "checksum"    VARCHAR(64) NOT NULL,
    "applied_at"  TIMESTAMPTZ NOT NULL DEFAULT now()
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
  const client = standaloneClient({ connectionString: url, connectionTimeoutMillis: 10_000 });
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
 * its own. A failed or edited migration stops the run, as Prisma's deploy does, except a migration
 * rewritten when its functions moved to prisma/repeatable/ whose former checksum the database
 * recorded: its new checksum is recorded instead. Then, still under the lock, the repeatable files
 * whose checksum changed are applied in one transaction, in name order (with the pending
 * migrations, for a database already migrated: `upgradeInOneTransaction`). Returns the
 * names it applied, the repeatable files as `repeatable/<file>`.
 */
export async function migrateDeploy(
  url: string,
  options: {
    quiet?: boolean;
    dir?: string;
    repeatableDir?: string;
    rewrittenFile?: string;
    log?: (line: string) => void;
  } = {},
): Promise<string[]> {
  const dir = options.dir ?? MIGRATIONS_DIR;
  const rewritten = rewrittenMigrations(options.rewrittenFile);
  const log = options.log ?? ((line: string) => (options.quiet ? undefined : process.stderr.write(`${line}\n`)));
  const client = standaloneClient({ connectionString: url, connectionTimeoutMillis: 10_000 });
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
    const pending: string[] = [];
    for (const name of listMigrations(dir)) {
      const checksum = migrationChecksum(readFileSync(path.join(dir, name, "migration.sql")));
      const previous = applied.get(name);
      if (previous === undefined) {
        pending.push(name);
      } else if (previous !== checksum && rewritten.get(name)?.includes(previous)) {
        await client.query(
          "UPDATE _prisma_migrations SET checksum = $2 WHERE migration_name = $1 AND rolled_back_at IS NULL",
          [name, checksum],
        );
        log(`recorded the rewritten ${name}`);
      } else if (previous !== checksum) {
        throw new MigrationError(
          `migration ${name} was edited after it was applied (checksum ${previous} in the database, ${checksum} on disk): restore it and add a new migration instead`,
        );
      }
    }
    const repeatableDir = options.repeatableDir ?? REPEATABLE_DIR;
    await client.query(CREATE_REPEATABLE_BOOKKEEPING);
    // A database already in use gets its pending migrations and the repeatable files in one
    // transaction: a writer between the two would run the old functions against the new tables.
    if (applied.size > 0 && pending.length > 0) {
      done.push(...(await upgradeInOneTransaction(client, dir, pending, repeatableDir, log)));
    } else {
      for (const name of pending) {
        await applyMigration(client, dir, name);
        log(`applied ${name}`);
        done.push(name);
      }
      // The repeatable files in one transaction of their own: all of a run's changes, or none.
      await client.query("BEGIN");
      try {
        const repeatables = await applyRepeatables(client, repeatableDir);
        await client.query("COMMIT");
        for (const name of repeatables) log(`applied ${name}`);
        done.push(...repeatables);
      } catch (error) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw error;
      }
    }
  } finally {
    await client.query("SELECT pg_advisory_unlock_all()").catch(() => undefined);
    await client.end();
  }
  if (!isEmbeddedDatabaseUrl(url)) await migrateJobQueue(url);
  return done;
}

/**
 * Applies one migration as Prisma's deploy does: its row first, the script as one query (one
 * implicit transaction, or part of the caller's), then `finished_at`; a failure is written into
 * the row's `logs` (unless the caller's transaction is to roll it back) and stops the run.
 */
async function applyMigration(client: Client, dir: string, name: string, inTransaction = false): Promise<void> {
  const sql = readFileSync(path.join(dir, name, "migration.sql"));
  const id = randomUUID();
  await client.query(
    "INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at) VALUES ($1, $2, $3, now())",
    [id, migrationChecksum(sql), name],
  );
  try {
    await client.query(sql.toString("utf8"));
  } catch (error) {
    const message = (error as Error).message;
    if (!inTransaction) await client.query("UPDATE _prisma_migrations SET logs = $2 WHERE id = $1", [id, message]);
    throw new MigrationError(`migration ${name} failed: ${message}`);
  }
  await client.query(
    "UPDATE _prisma_migrations SET finished_at = now(), applied_steps_count = applied_steps_count + 1 WHERE id = $1",
    [id],
  );
}

/**
 * A database already migrated, with migrations still to apply: its pending migrations and the
 * repeatable files are applied in one transaction, so that no writer ever runs the database's old
 * functions against the newer tables in between (the migrations' own locks hold writers back until
 * the end); this covers a database part way before a migration rewritten when its function bodies
 * moved to prisma/repeatable/. On a failure nothing is applied, and nothing is recorded
 * (docs/database.md, "Functions").
 */
async function upgradeInOneTransaction(
  client: Client,
  dir: string,
  pending: string[],
  repeatableDir: string,
  log: (line: string) => void,
): Promise<string[]> {
  await client.query("BEGIN");
  try {
    for (const name of pending) await applyMigration(client, dir, name, true);
    const repeatables = await applyRepeatables(client, repeatableDir);
    await client.query("COMMIT");
    for (const name of pending) log(`applied ${name}`);
    for (const name of repeatables) log(`applied ${name}`);
    return [...pending, ...repeatables];
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    const message = error instanceof MigrationError ? error.message : (error as Error).message;
    throw new MigrationError(`${message} (in the one transaction of an upgrade: rolled back, nothing applied)`);
  }
}

/**
 * Applies the repeatable files of `dir` whose checksum changed, in name order, inside the caller's
 * transaction (which a failure leaves to roll back), and records their checksums.
 */
async function applyRepeatables(client: Client, dir: string): Promise<string[]> {
  const changed = await pendingRepeatables(client, dir);
  for (const file of changed) {
    try {
      await client.query(file.sql);
    } catch (error) {
      throw new MigrationError(`repeatable ${file.name} failed: ${(error as Error).message}`);
    }
    await client.query(
      `INSERT INTO _repeatable_migrations (name, checksum) VALUES ($1, $2)
       ON CONFLICT (name) DO UPDATE SET checksum = EXCLUDED.checksum, applied_at = now()`,
      [file.name, file.checksum],
    );
  }
  return changed.map((file) => REPEATABLE_PREFIX + file.name);
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
