import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "pg";
import { createDatabase, type Database } from "./client";
import { type EmbeddedPostgres, startEmbeddedPostgres } from "./embedded";
import {
  listMigrations,
  migrateDeploy,
  migrationChecksum,
  migrationState,
  PRISMA_MIGRATE_LOCK_KEY,
  REPEATABLE_DIR,
} from "./migrations";
import { createTestDatabase } from "./testing";

type Backend = "postgres" | "embedded";

/** A migrated database of the suite's own on `backend`. */
async function openDatabase(backend: Backend): Promise<{ db: Database; url: string; close(): Promise<void> }> {
  /** The database's client over `url`, closed before `drop` runs. */
  const opened = (url: string, poolMax: number, drop: () => Promise<void>) => {
    const db = createDatabase({ url, poolMax });
    return { db, url, close: () => db.close().then(drop) };
  };
  if (backend === "postgres") {
    const testDb = await createTestDatabase("db_migrations");
    return opened(testDb.url, 2, () => testDb.drop());
  }
  const dir = await mkdtemp(path.join(tmpdir(), "migrations-embedded-"));
  const embedded: EmbeddedPostgres = await startEmbeddedPostgres({ dataDir: dir });
  await migrateDeploy(embedded.url, { quiet: true });
  return opened(embedded.url, 1, async () => {
    await embedded.stop();
    await rm(dir, { recursive: true, force: true });
  });
}

async function started(db: Database, name: string, logs: string | null = null): Promise<void> {
  await db.pool.query(
    `INSERT INTO _prisma_migrations (id, checksum, migration_name, logs, started_at, applied_steps_count)
     VALUES ($1, 'checksum', $2, $3, now(), 0)`,
    [randomUUID(), name, logs],
  );
}

const forget = (db: Database) => db.pool.query("DELETE FROM _prisma_migrations WHERE migration_name LIKE '2999%'");

/**
 * `_prisma_migrations` rows written as `prisma migrate deploy` writes them: the row first
 * (started_at, no finished_at, no logs) while it holds its advisory lock, `logs` when the SQL
 * failed, `finished_at` when it succeeded.
 */
describe.each<Backend>(["postgres", "embedded"])(`${migrationState.name} on %s`, (backend) => {
  let opened: Awaited<ReturnType<typeof openDatabase>>;

  beforeAll(async () => {
    opened = await openDatabase(backend);
  }, 120_000);

  afterAll(() => opened?.close());
  afterEach(() => forget(opened.db));

  it("reports a migration whose SQL failed (prisma wrote its logs) as failed", async () => {
    await started(opened.db, "29990101000000_broken", "ERROR: column already exists");
    expect(await migrationState(opened.db.pool)).toEqual({
      pending: [],
      failed: ["29990101000000_broken"],
      inProgress: [],
    });
  });

  it("reports a repeatable file whose text the database has not applied as pending, which the next deploy applies", async () => {
    const { db } = opened;
    await db.pool.query(
      "UPDATE _repeatable_migrations SET checksum = 'an older text' WHERE name = 'team_list_track.sql'",
    );
    expect(await migrationState(db.pool)).toEqual({
      pending: ["repeatable/team_list_track.sql"],
      failed: [],
      inProgress: [],
    });
    expect(await migrateDeploy(opened.url, { quiet: true })).toEqual(["repeatable/team_list_track.sql"]);
    const { rows } = await db.pool.query(
      "SELECT checksum FROM _repeatable_migrations WHERE name = 'team_list_track.sql'",
    );
    expect(rows).toEqual([{ checksum: migrationChecksum(readFileSync(`${REPEATABLE_DIR}/team_list_track.sql`)) }]);
    expect(await migrationState(db.pool)).toEqual({ pending: [], failed: [], inProgress: [] });
  });
});

/**
 * Whether a deploy is still running is told by its advisory lock, which only a server with
 * sessions of their own has: the embedded database is one session, which migrates itself at start.
 */
describe(`${migrationState.name} while a deploy runs on PostgreSQL`, () => {
  let opened: Awaited<ReturnType<typeof openDatabase>>;

  beforeAll(async () => {
    opened = await openDatabase("postgres");
  }, 120_000);

  afterAll(() => opened?.close());
  afterEach(() => forget(opened.db));

  /** Runs `work` while another session holds the lock of a running `prisma migrate deploy`. */
  async function whileMigrating<T>(work: () => Promise<T>): Promise<T> {
    const deploy = new Client({ connectionString: opened.url });
    await deploy.connect();
    try {
      await deploy.query("SELECT pg_advisory_lock($1)", [PRISMA_MIGRATE_LOCK_KEY]);
      return await work();
    } finally {
      await deploy.end();
    }
  }

  it("reports a later release's migration in progress as such, not as failed", async () => {
    await started(opened.db, "29990101000000_expand");
    const state = await whileMigrating(() => migrationState(opened.db.pool));
    expect(state).toEqual({ pending: [], failed: [], inProgress: ["29990101000000_expand"] });
  });

  it("reports a failed migration as failed while a deploy runs", async () => {
    await started(opened.db, "29990101000000_broken", "ERROR: column already exists");
    const state = await whileMigrating(() => migrationState(opened.db.pool));
    expect(state).toEqual({ pending: [], failed: ["29990101000000_broken"], inProgress: [] });
  });

  it("reports an unfinished migration that no deploy is running any more (a killed run) as failed", async () => {
    await started(opened.db, "29990101000000_killed");
    expect(await migrationState(opened.db.pool)).toEqual({
      pending: [],
      failed: ["29990101000000_killed"],
      inProgress: [],
    });
  });

  it("keeps a shipped migration in progress pending", async () => {
    const shipped = listMigrations();
    const latest = shipped[shipped.length - 1] as string;
    const { db } = opened;
    await db.pool.query("UPDATE _prisma_migrations SET finished_at = NULL WHERE migration_name = $1", [latest]);
    try {
      const state = await whileMigrating(() => migrationState(db.pool));
      expect(state).toEqual({ pending: [latest], failed: [], inProgress: [latest] });
    } finally {
      await db.pool.query("UPDATE _prisma_migrations SET finished_at = now() WHERE migration_name = $1", [latest]);
    }
  });
});
