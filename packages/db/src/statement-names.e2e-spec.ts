import { createDatabase, type Database } from "./client";
import type { Queryable } from "./lists/team-list";
import { PrismaStatements } from "./prisma-statements";
import { createTestDatabase, type TestDatabase } from "./testing";

/** The two ways a statement reaches the pool: Prisma's raw queries, and node-postgres beneath it (the token lookup's). */
const WAYS: [string, (database: Database) => Queryable][] = [
  ["through Prisma", (database) => new PrismaStatements(database.prisma)],
  ["on the pool beneath Prisma", (database) => database.poolStatements],
];

const SQL = "SELECT $1::int + 1 AS n";
const HELD_SQL = "SELECT count(*)::int AS held FROM pg_prepared_statements WHERE name LIKE 'cts%'";

describe.each(WAYS)("StatementNames (adapter-pg's statement naming) on a real PostgreSQL, %s", (_way, way) => {
  let testDb: TestDatabase;
  let db: Database | undefined;

  /** One connection: the statements a query prepared are the ones the next query sees. */
  const open = (options: { preparedStatements?: boolean; preparedStatementsPerConnection?: number } = {}) => {
    db = createDatabase({ url: testDb.url, poolMax: 1, ...options });
    return { database: db, statements: way(db) };
  };
  const held = async (database: Database) => (await database.pool.query<{ held: number }>(HELD_SQL)).rows[0]?.held;

  beforeAll(async () => {
    testDb = await createTestDatabase("db_statement_names");
  });

  afterEach(async () => {
    await db?.close();
    db = undefined;
  });

  afterAll(async () => {
    await testDb?.drop();
  });

  it("prepares a statement once per connection and answers from it, under the name the other way gives it too", async () => {
    const { database, statements } = open();
    for (let i = 0; i < 3; i += 1) {
      const { rows } = await statements.query<{ n: number }>(SQL, [i]);
      expect(rows).toEqual([{ n: i + 1 }]);
    }
    expect(await held(database)).toBe(1);
    for (const [, other] of WAYS)
      expect((await other(database).query<{ n: number }>(SQL, [7])).rows).toEqual([{ n: 8 }]);
    expect(await held(database)).toBe(1);
  });

  it("names at most the configured number of statement texts and sends the others unnamed", async () => {
    const { database, statements } = open({ preparedStatementsPerConnection: 4 });
    // Ten statement shapes, as ten walk or filter shapes would be; then the first again.
    for (let shape = 0; shape < 10; shape += 1) {
      const { rows } = await statements.query<{ n: number }>(`SELECT $1::int + ${shape} AS n`, [1]);
      expect(rows).toEqual([{ n: 1 + shape }]);
    }
    expect(await held(database)).toBe(4);
    const { rows } = await statements.query<{ n: number }>("SELECT $1::int + 0 AS n", [5]);
    expect(rows).toEqual([{ n: 5 }]);
    expect(await held(database)).toBe(4);
  });

  it("answers a statement whose result type changed under it (a widened column) instead of failing", async () => {
    const { database, statements } = open();
    await database.pool.query("CREATE TABLE widened (id int PRIMARY KEY, slug varchar(8) NOT NULL, n int NOT NULL)");
    await database.pool.query("INSERT INTO widened VALUES (1, 'a', 2700)");
    const select = "SELECT slug, n FROM widened WHERE id = $1";
    expect((await statements.query(select, [1])).rows).toEqual([{ slug: "a", n: 2700 }]);
    // Widening a varchar rewrites nothing and takes milliseconds; the prepared plan's result type changes.
    await database.pool.query("ALTER TABLE widened ALTER COLUMN slug TYPE varchar(64)");
    expect((await statements.query(select, [1])).rows).toEqual([{ slug: "a", n: 2700 }]);
    await database.pool.query("ALTER TABLE widened ALTER COLUMN n TYPE bigint");
    const { rows } = await statements.query<{ n: unknown }>(select, [1]);
    expect(Number(rows[0]?.n)).toBe(2700);
    // Prisma's own queries meet the renewed names too.
    expect(await database.prisma.team.count({ where: { id: "none" } })).toBe(0);
  });

  it("passes on every other error with its SQLSTATE", async () => {
    const { statements } = open();
    await expect(statements.query("SELECT * FROM no_such_table WHERE 1 = $1", [1])).rejects.toMatchObject({
      code: "42P01",
    });
    expect((await statements.query<{ n: number }>(SQL, [1])).rows).toEqual([{ n: 2 }]);
  });

  it("names nothing when turned off (DATABASE_PREPARED_STATEMENTS=false)", async () => {
    const { database, statements } = open({ preparedStatements: false });
    expect((await statements.query<{ n: number }>(SQL, [1])).rows).toEqual([{ n: 2 }]);
    expect(await held(database)).toBe(0);
  });
});
