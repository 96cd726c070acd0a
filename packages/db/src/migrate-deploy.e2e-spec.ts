import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "pg";
import { type EmbeddedPostgres, startEmbeddedPostgres } from "./embedded";
import {
  listMigrations,
  MIGRATIONS_DIR,
  MigrationError,
  markRolledBack,
  migrateDeploy,
  migrationChecksum,
} from "./migrations";
import { createEmptyTestDatabase, type TestDatabase } from "./testing";

const PACKAGE_DIR = path.resolve(__dirname, "..");

/** The version this package gets (its node_modules link), whatever the package's exports allow. */
const installedVersion = (name: string): string =>
  (
    JSON.parse(readFileSync(path.join(PACKAGE_DIR, "node_modules", name, "package.json"), "utf8")) as {
      version: string;
    }
  ).version;
const major = (version: string) => version.split(".")[0];

interface Row {
  migration_name: string;
  checksum: string;
  finished: boolean;
  applied_steps_count: number;
  logs: string | null;
}

async function bookkeeping(url: string): Promise<Row[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (
      await client.query<Row>(
        `SELECT migration_name, checksum, finished_at IS NOT NULL AS finished, applied_steps_count, logs
           FROM _prisma_migrations ORDER BY migration_name`,
      )
    ).rows;
  } finally {
    await client.end();
  }
}

/** What `prisma migrate deploy` records for the shipped migrations: Prisma's checksum (SHA-256 of the file), one step each. */
const expectedRows = (names = listMigrations()) =>
  names.map((name) => ({
    migration_name: name,
    checksum: migrationChecksum(readFileSync(path.join(MIGRATIONS_DIR, name, "migration.sql"))),
    finished: true,
    applied_steps_count: 1,
    logs: null,
  }));

describe("the Prisma pairing", () => {
  it("runs the client on the driver adapter of its own major (Prisma supports no other pairing)", () => {
    const client = installedVersion("@prisma/client");
    expect(major(installedVersion("@prisma/adapter-pg"))).toBe(major(client));
    expect(major(installedVersion("prisma"))).toBe(major(client));
  });
});

describe(migrateDeploy.name, () => {
  let db: TestDatabase;
  const scratch = mkdtempSync(path.join(tmpdir(), "migrations-"));

  beforeAll(async () => {
    db = await createEmptyTestDatabase("migrations");
  });

  afterAll(async () => {
    await db?.drop();
    rmSync(scratch, { recursive: true, force: true });
  });

  // Prisma's format, so that `prisma migrate status` reads it where its schema engine can be
  // downloaded (Prisma 7 has no other; docs/database.md, "Migrations").
  it("applies every migration once on PostgreSQL, in Prisma's bookkeeping format", async () => {
    expect(await migrateDeploy(db.url, { quiet: true })).toEqual(listMigrations());
    expect(await bookkeeping(db.url)).toEqual(expectedRows());
    expect(await migrateDeploy(db.url, { quiet: true })).toEqual([]);
  }, 90_000);

  it("records a failed migration with its logs, then refuses to go on, as Prisma does", async () => {
    const dir = path.join(scratch, "failing");
    cpSync(MIGRATIONS_DIR, dir, { recursive: true });
    mkdirSync(path.join(dir, "29991231000000_broken"));
    writeFileSync(path.join(dir, "29991231000000_broken", "migration.sql"), "SELECT * FROM no_such_table;\n");
    await expect(migrateDeploy(db.url, { quiet: true, dir })).rejects.toThrow(
      /migration 29991231000000_broken failed: relation "no_such_table" does not exist/,
    );
    const broken = (await bookkeeping(db.url)).find((r) => r.migration_name === "29991231000000_broken");
    expect(broken).toMatchObject({ finished: false, logs: expect.stringContaining("no_such_table") });
    await expect(migrateDeploy(db.url, { quiet: true, dir })).rejects.toThrow(/29991231000000_broken failed earlier/);
    // Resolved (prisma migrate resolve --rolled-back): the next run applies the fixed script.
    await markRolledBack(db.url, "29991231000000_broken");
    writeFileSync(path.join(dir, "29991231000000_broken", "migration.sql"), "SELECT 1;\n");
    expect(await migrateDeploy(db.url, { quiet: true, dir })).toEqual(["29991231000000_broken"]);
  });

  it("refuses a migration edited after it was applied", async () => {
    const other = await createEmptyTestDatabase("migrations_edit");
    try {
      await migrateDeploy(other.url, { quiet: true });
      const dir = path.join(scratch, "edited");
      cpSync(MIGRATIONS_DIR, dir, { recursive: true });
      const first = listMigrations()[0] ?? "";
      writeFileSync(path.join(dir, first, "migration.sql"), "-- edited\n", { flag: "a" });
      const run = migrateDeploy(other.url, { quiet: true, dir });
      await expect(run).rejects.toThrow(MigrationError);
      await expect(run).rejects.toThrow(new RegExp(`migration ${first} was edited after it was applied`));
    } finally {
      await other.drop();
    }
  });

  it("applies the same migrations to the embedded database", async () => {
    let embedded: EmbeddedPostgres | undefined;
    try {
      embedded = await startEmbeddedPostgres({ dataDir: path.join(scratch, "pglite") });
      expect(await migrateDeploy(embedded.url, { quiet: true })).toEqual(listMigrations());
      expect(await bookkeeping(embedded.url)).toEqual(expectedRows());
      expect(await migrateDeploy(embedded.url, { quiet: true })).toEqual([]);
    } finally {
      await embedded?.stop();
    }
  }, 120_000);
});
