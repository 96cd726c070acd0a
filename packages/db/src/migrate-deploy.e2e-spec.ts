import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "pg";
import { type EmbeddedPostgres, startEmbeddedPostgres } from "./embedded";
import {
  listMigrations,
  listRepeatables,
  MIGRATIONS_DIR,
  MigrationError,
  markRolledBack,
  migrateDeploy,
  migrationChecksum,
  REPEATABLE_DIR,
  rewrittenMigrations,
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

/** What a first run applies: every migration, then every repeatable file. */
const everything = () => [...listMigrations(), ...listRepeatables().map((name) => `repeatable/${name}`)];

async function query<T extends object>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

/**
 * The functions a repeatable file defines, by name, with the body it gives each: the text of its
 * E'' string as PostgreSQL reads it (a doubled quote is one quote, \x3B a semicolon).
 */
function definedIn(file: string): Map<string, string> {
  const sql = readFileSync(path.join(REPEATABLE_DIR, file), "utf8");
  const found = new Map<string, string>();
  for (const match of sql.matchAll(/^CREATE OR REPLACE FUNCTION "(\w+)"\([\s\S]*?\bAS E'((?:[^']|'')*)'\s*;/gm)) {
    const [, name, body] = match as unknown as [string, string, string];
    found.set(name, body.replaceAll("''", "'").replaceAll("\\x3B", ";"));
  }
  return found;
}

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
    expect(await migrateDeploy(db.url, { quiet: true })).toEqual(everything());
    expect(await bookkeeping(db.url)).toEqual(expectedRows());
    expect(await migrateDeploy(db.url, { quiet: true })).toEqual([]);
  }, 90_000);

  it("rolls a failed upgrade back whole, then applies the fixed script", async () => {
    // A database in use gets its pending migrations in one transaction (a writer must never run
    // the old functions against new tables): a failure leaves nothing to resolve by hand.
    const dir = path.join(scratch, "failing");
    cpSync(MIGRATIONS_DIR, dir, { recursive: true });
    mkdirSync(path.join(dir, "29991231000000_broken"));
    writeFileSync(path.join(dir, "29991231000000_broken", "migration.sql"), "SELECT * FROM no_such_table;\n");
    await expect(migrateDeploy(db.url, { quiet: true, dir })).rejects.toThrow(
      /migration 29991231000000_broken failed: relation "no_such_table" does not exist .*rolled back, nothing applied/,
    );
    expect((await bookkeeping(db.url)).find((r) => r.migration_name === "29991231000000_broken")).toBeUndefined();
    writeFileSync(path.join(dir, "29991231000000_broken", "migration.sql"), "SELECT 1;\n");
    expect(await migrateDeploy(db.url, { quiet: true, dir })).toEqual(["29991231000000_broken"]);
  });

  it("records a failed migration left by Prisma's own deploy, and refuses to go on until it is resolved", async () => {
    const dir = path.join(scratch, "failed-earlier");
    cpSync(MIGRATIONS_DIR, dir, { recursive: true });
    mkdirSync(path.join(dir, "29991231000001_failed"));
    writeFileSync(path.join(dir, "29991231000001_failed", "migration.sql"), "SELECT 1;\n");
    await query(
      db.url,
      `INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at, logs)
       VALUES (gen_random_uuid()::text, 'x', '29991231000001_failed', now(), 'it failed')`,
    );
    await expect(migrateDeploy(db.url, { quiet: true, dir })).rejects.toThrow(/29991231000001_failed failed earlier/);
    // Resolved (prisma migrate resolve --rolled-back): the next run applies the script.
    await markRolledBack(db.url, "29991231000001_failed");
    expect(await migrateDeploy(db.url, { quiet: true, dir })).toEqual(["29991231000001_failed"]);
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
      expect(await migrateDeploy(embedded.url, { quiet: true })).toEqual(everything());
      expect(await bookkeeping(embedded.url)).toEqual(expectedRows());
      expect(await migrateDeploy(embedded.url, { quiet: true })).toEqual([]);
    } finally {
      await embedded?.stop();
    }
  }, 120_000);

  it("leaves the database's functions as the repeatable files define them", async () => {
    await migrateDeploy(db.url, { quiet: true });
    const files = listRepeatables();
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const defined = definedIn(file);
      expect(defined.size).toBe(1);
      for (const [name, body] of defined) {
        const [row] = await query<{ prosrc: string }>(db.url, "SELECT prosrc FROM pg_proc WHERE proname = $1", [name]);
        expect({ file, name, body: row?.prosrc }).toEqual({ file, name, body });
      }
    }
  });

  it("applies a repeatable file again once its checksum changes, and not while it stays the same", async () => {
    await migrateDeploy(db.url, { quiet: true });
    const dir = path.join(scratch, "repeatable");
    cpSync(REPEATABLE_DIR, dir, { recursive: true });
    const file = path.join(dir, "team_list_sort_key.sql");
    writeFileSync(
      file,
      readFileSync(file, "utf8").replace("is not declared in team_lists", "is not declared (edited)"),
    );
    expect(await migrateDeploy(db.url, { quiet: true, repeatableDir: dir })).toEqual([
      "repeatable/team_list_sort_key.sql",
    ]);
    expect(await migrateDeploy(db.url, { quiet: true, repeatableDir: dir })).toEqual([]);
    const [edited] = await query<{ prosrc: string }>(
      db.url,
      "SELECT prosrc FROM pg_proc WHERE proname = 'team_list_sort_key'",
    );
    expect(edited?.prosrc).toContain("is not declared (edited)");
    // Back to the shipped file: applied again, once.
    expect(await migrateDeploy(db.url, { quiet: true })).toEqual(["repeatable/team_list_sort_key.sql"]);
    expect(await migrateDeploy(db.url, { quiet: true })).toEqual([]);
  });

  it("rolls back every repeatable file of a run when one fails", async () => {
    await migrateDeploy(db.url, { quiet: true });
    const dir = path.join(scratch, "repeatable-failing");
    cpSync(REPEATABLE_DIR, dir, { recursive: true });
    writeFileSync(path.join(dir, "team_list_sort_key.sql"), "-- edited\n", { flag: "a" });
    writeFileSync(path.join(dir, "zz_broken.sql"), "SELECT * FROM no_such_table;\n");
    await expect(migrateDeploy(db.url, { quiet: true, repeatableDir: dir })).rejects.toThrow(
      /repeatable zz_broken.sql failed: relation "no_such_table" does not exist/,
    );
    const rows = await query<{ name: string; checksum: string }>(
      db.url,
      "SELECT name, checksum FROM _repeatable_migrations",
    );
    expect(rows.map((r) => r.name).sort()).toEqual(listRepeatables());
    const shipped = migrationChecksum(readFileSync(path.join(REPEATABLE_DIR, "team_list_sort_key.sql")));
    expect(rows.find((r) => r.name === "team_list_sort_key.sql")?.checksum).toBe(shipped);
  });

  it("upgrades a database migrated before the functions moved: rewritten migrations recorded anew, functions applied", async () => {
    const other = await createEmptyTestDatabase("migrations_upgrade");
    try {
      await migrateDeploy(other.url, { quiet: true });
      // The state of a database that applied the migrations as they were: their former checksums,
      // no repeatable bookkeeping, and a function that is not the file's.
      const rewritten = rewrittenMigrations();
      expect(rewritten.size).toBeGreaterThan(0);
      for (const [name, [former]] of rewritten) {
        await query(other.url, "UPDATE _prisma_migrations SET checksum = $2 WHERE migration_name = $1", [name, former]);
      }
      await query(other.url, "DROP TABLE _repeatable_migrations");
      await query(
        other.url,
        `CREATE OR REPLACE FUNCTION team_list_commit() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN RETURN NULL; END'`,
      );

      const lines: string[] = [];
      expect(await migrateDeploy(other.url, { log: (line) => lines.push(line) })).toEqual(
        listRepeatables().map((name) => `repeatable/${name}`),
      );
      expect(lines).toEqual(
        expect.arrayContaining([...rewritten.keys()].map((name) => `recorded the rewritten ${name}`)),
      );
      expect(await bookkeeping(other.url)).toEqual(expectedRows());
      const [commit] = await query<{ prosrc: string }>(
        other.url,
        "SELECT prosrc FROM pg_proc WHERE proname = 'team_list_commit'",
      );
      expect(commit?.prosrc).toBe(definedIn("team_list_commit.sql").get("team_list_commit"));
      expect(await migrateDeploy(other.url, { quiet: true })).toEqual([]);
    } finally {
      await other.drop();
    }
  });

  it("upgrades a database part way before a rewritten migration in one transaction, or not at all", async () => {
    const other = await createEmptyTestDatabase("migrations_partial");
    try {
      const dir = path.join(scratch, "partial");
      mkdirSync(dir);
      const shipped = listMigrations();
      const first = shipped.slice(0, 3);
      for (const name of first) cpSync(path.join(MIGRATIONS_DIR, name), path.join(dir, name), { recursive: true });
      await migrateDeploy(other.url, { quiet: true, dir, repeatableDir: path.join(dir, "none") });

      // A failure anywhere (here a broken migration after the shipped ones) rolls every step back.
      const failing = path.join(scratch, "partial-failing");
      cpSync(MIGRATIONS_DIR, failing, { recursive: true });
      mkdirSync(path.join(failing, "29991231000000_broken"));
      writeFileSync(path.join(failing, "29991231000000_broken", "migration.sql"), "SELECT * FROM no_such_table;\n");
      await expect(migrateDeploy(other.url, { quiet: true, dir: failing })).rejects.toThrow(
        /migration 29991231000000_broken failed: .*rolled back, nothing applied/,
      );
      expect((await bookkeeping(other.url)).map((r) => r.migration_name)).toEqual(first);
      expect(await query(other.url, "SELECT to_regclass('team_list_pending') AS t")).toEqual([{ t: null }]);

      expect(await migrateDeploy(other.url, { quiet: true })).toEqual([
        ...shipped.slice(3),
        ...listRepeatables().map((name) => `repeatable/${name}`),
      ]);
      expect(await bookkeeping(other.url)).toEqual(expectedRows());
      const [commit] = await query<{ prosrc: string }>(
        other.url,
        "SELECT prosrc FROM pg_proc WHERE proname = 'team_list_commit'",
      );
      expect(commit?.prosrc).toBe(definedIn("team_list_commit.sql").get("team_list_commit"));
    } finally {
      await other.drop();
    }
  });
});
