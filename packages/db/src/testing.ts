import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Client } from "pg";
import { createDatabase, type Database } from "./client";
import { listMigrations, listRepeatables, MIGRATIONS_DIR, migrateDeploy, REPEATABLE_DIR } from "./migrations";
import { standaloneClient } from "./standalone-client";

/**
 * Test support: every suite gets its own PostgreSQL database, cloned from a template that holds
 * the migrated schema. The template is migrated once per set of migrations and repeatable files
 * (its name carries their digest), so a run applies the migrations once and suites stay independent.
 */

export const DEFAULT_TEST_ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/postgres";

export function testAdminUrl(): string {
  return process.env.TEST_DATABASE_URL ?? DEFAULT_TEST_ADMIN_URL;
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

function migrationsDigest(): string {
  const hash = createHash("sha256");
  for (const name of listMigrations()) {
    hash.update(name);
    hash.update(readFileSync(path.join(MIGRATIONS_DIR, name, "migration.sql")));
  }
  for (const name of listRepeatables()) {
    hash.update(`repeatable/${name}`);
    hash.update(readFileSync(path.join(REPEATABLE_DIR, name)));
  }
  return hash.digest("hex").slice(0, 12);
}

async function withAdmin<T>(fn: (client: Client) => Promise<T>): Promise<T> {
  const client = standaloneClient({ connectionString: testAdminUrl(), connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

async function ensureTemplate(): Promise<string> {
  const template = `community_tpl_${migrationsDigest()}`;
  await withAdmin(async (admin) => {
    // Serialises template creation across parallel jest workers.
    await admin.query("SELECT pg_advisory_lock(727073)");
    try {
      const found = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [template]);
      if (found.rowCount === 0) {
        const building = `${template}_building`;
        await admin.query(`DROP DATABASE IF EXISTS ${quote(building)}`);
        await admin.query(`CREATE DATABASE ${quote(building)}`);
        await migrateDeploy(withDatabase(testAdminUrl(), building), { quiet: true });
        await admin.query(`ALTER DATABASE ${quote(building)} RENAME TO ${quote(template)}`);
      }
    } finally {
      await admin.query("SELECT pg_advisory_unlock(727073)");
    }
  });
  return template;
}

/**
 * A seeded stream of numbers in [0, 1) (mulberry32): the same seed gives the same stream, so a
 * seeded random test that fails names its seed and replays it.
 */
export function seededRandom(seed: number): () => number {
  let state = seed | 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

let databasesMade = 0;

/** Creates a uniquely named database (optionally cloned from `template`) and its drop(). */
async function createNamedDatabase(prefix: string, template?: string): Promise<TestDatabase> {
  const safePrefix = prefix
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .slice(0, 30);
  // The counter keeps two databases made in the same millisecond by one process apart (Promise.all).
  const name = `test_${safePrefix}_${process.pid}_${Date.now().toString(36)}_${(databasesMade++).toString(36)}`;
  const from = template === undefined ? "" : ` TEMPLATE ${quote(template)}`;
  await withAdmin((admin) => admin.query(`CREATE DATABASE ${quote(name)}${from}`));
  return {
    name,
    url: withDatabase(testAdminUrl(), name),
    drop: () =>
      withAdmin(async (admin) => {
        // pg's pool.end() resolves once it has asked its connections to close, not once they have:
        // a session still closing when FORCE terminates it hands its client a FATAL error, which
        // a pool without an error listener throws (an "Unhandled error" in whichever test runs).
        // So the sessions get a moment to go; FORCE then ends only those a test left open.
        for (let tries = 0; tries < 20; tries += 1) {
          const { rows } = await admin.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1",
            [name],
          );
          if ((rows[0]?.n ?? 0) === 0) break;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        await admin.query(`DROP DATABASE IF EXISTS ${quote(name)} WITH (FORCE)`);
      }),
  };
}

/** A fresh, migrated, empty database of its own for one test suite. */
export async function createTestDatabase(prefix: string): Promise<TestDatabase> {
  return createNamedDatabase(prefix, await ensureTemplate());
}

/** A fresh database with no schema at all (for testing migrations themselves). */
export function createEmptyTestDatabase(prefix: string): Promise<TestDatabase> {
  return createNamedDatabase(prefix);
}

/** Makes a resource before a describe block's tests and ends it after them; returns its reader. */
function forSuite<T>(make: () => Promise<T>, end: (made: T) => Promise<void>): () => T {
  let made: T | undefined;
  beforeAll(async () => {
    made = await make();
  });
  afterAll(async () => {
    if (made !== undefined) await end(made);
  });
  return () => {
    if (made === undefined) throw new Error("the suite's database is not created yet (read it inside a test)");
    return made;
  };
}

/**
 * For a describe block: a test database (migrated, or `empty`) created before its tests and
 * dropped after them. Read its `name` and `url` inside the tests.
 */
export function testDatabaseForSuite(
  prefix: string,
  { empty = false }: { empty?: boolean } = {},
): Pick<TestDatabase, "name" | "url"> {
  const created = forSuite(
    () => (empty ? createEmptyTestDatabase : createTestDatabase)(prefix),
    (testDb) => testDb.drop(),
  );
  return {
    get name() {
      return created().name;
    },
    get url() {
      return created().url;
    },
  };
}

/**
 * The same, with a Database of `poolMax` connections on it (`database`), closed before the drop.
 */
export function databaseForSuite(
  prefix: string,
  poolMax: number,
): Pick<TestDatabase, "name" | "url"> & { readonly database: Database } {
  const created = forSuite(
    async () => {
      const testDb = await createTestDatabase(prefix);
      return { testDb, database: createDatabase({ url: testDb.url, poolMax }) };
    },
    async ({ testDb, database }) => {
      await database.close();
      await testDb.drop();
    },
  );
  return {
    get name() {
      return created().testDb.name;
    },
    get url() {
      return created().testDb.url;
    },
    get database() {
      return created().database;
    },
  };
}

export { statusCountMismatches } from "./lists/status-count-truth";
export {
  LockMonitor,
  SqlSession,
  type StepState,
  settledOrWaiting,
  sqlState,
  type Tracked,
  track,
} from "./lock-waits";

/** The SQL of a pool.query() call's first argument: a text, or pg's query config of a named statement. */
export function statementText(query: unknown): string {
  return typeof query === "object" && query !== null && "text" in query ? String(query.text) : String(query);
}
