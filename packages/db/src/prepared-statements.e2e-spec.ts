import { createRequire } from "node:module";
import { createDatabase, type Database } from "./client";
import { createTestDatabase, type TestDatabase } from "./testing";

const SQL = "SELECT $1::int + 1 AS n";
const HELD_SQL = "SELECT count(*)::int AS held FROM pg_prepared_statements WHERE name LIKE 'cts\\_%'";

describe("PreparedStatements on a real PostgreSQL", () => {
  let testDb: TestDatabase;
  let db: Database | undefined;
  const refusals: Error[] = [];

  /** One connection: the statements a query prepared are the ones the next query sees. */
  const open = (options: { preparedStatements?: boolean; preparedStatementsPerConnection?: number } = {}) => {
    db = createDatabase({
      url: testDb.url,
      poolMax: 1,
      onStatementsUnnamed: (error) => refusals.push(error),
      ...options,
    });
    return db;
  };
  const held = async (database: Database) => (await database.pool.query<{ held: number }>(HELD_SQL)).rows[0]?.held;

  beforeAll(async () => {
    testDb = await createTestDatabase("db_prepared");
  });

  afterEach(async () => {
    refusals.length = 0;
    await db?.close();
    db = undefined;
  });

  afterAll(async () => {
    await testDb?.drop();
  });

  it("prepares a statement sent through Prisma once per connection and answers from it", async () => {
    const database = open();
    for (let i = 0; i < 3; i += 1) {
      const { rows } = await database.statements.query<{ n: number }>(SQL, [i]);
      expect(rows).toEqual([{ n: i + 1 }]);
    }
    expect(await held(database)).toBe(1);
    expect(database.naming.primary.active).toBe(true);
  });

  it("plans its raw statements without Prisma's WebAssembly query compiler, which still plans model queries", async () => {
    // Node's own require: the generated client loads the compiler with import(), outside jest's registry.
    const { QueryCompiler } = createRequire(__filename)("@prisma/client/runtime/query_compiler_bg.postgresql.js");
    const compile = jest.spyOn(QueryCompiler.prototype, "compile");
    try {
      const database = open();
      const { rows } = await database.statements.query<{ n: number; tags: string[] }>(
        "SELECT $1::int + 1 AS n, $2::text[] AS tags",
        [41, ["a", "b"]],
      );
      expect(rows).toEqual([{ n: 42, tags: ["a", "b"] }]);
      expect(compile).not.toHaveBeenCalled();
      await database.prisma.team.findFirst({ where: { id: "no such team" } });
      expect(compile).toHaveBeenCalledTimes(1);
    } finally {
      compile.mockRestore();
    }
  });

  it("keeps at most the configured number of statements per connection, deallocating the least recently used", async () => {
    const database = open({ preparedStatementsPerConnection: 4 });
    // Ten statement shapes, as ten walk or filter shapes would be; then the first again.
    for (let shape = 0; shape < 10; shape += 1) {
      const { rows } = await database.statements.query<{ n: number }>(`SELECT $1::int + ${shape} AS n`, [1]);
      expect(rows).toEqual([{ n: 1 + shape }]);
    }
    expect(await held(database)).toBe(4);
    const { rows } = await database.statements.query<{ n: number }>("SELECT $1::int + 0 AS n", [5]);
    expect(rows).toEqual([{ n: 5 }]);
    expect(await held(database)).toBe(4);
    expect(database.naming.primary.active).toBe(true);
  });

  it("answers a statement whose result type changed under it (a widened column) instead of failing", async () => {
    const database = open();
    await database.pool.query("CREATE TABLE widened (id int PRIMARY KEY, slug varchar(8) NOT NULL, n int NOT NULL)");
    await database.pool.query("INSERT INTO widened VALUES (1, 'a', 2700)");
    const select = "SELECT slug, n FROM widened WHERE id = $1";
    expect((await database.statements.query(select, [1])).rows).toEqual([{ slug: "a", n: 2700 }]);
    // Widening a varchar rewrites nothing and takes milliseconds; the prepared plan's result type changes.
    await database.pool.query("ALTER TABLE widened ALTER COLUMN slug TYPE varchar(64)");
    expect((await database.statements.query(select, [1])).rows).toEqual([{ slug: "a", n: 2700 }]);
    await database.pool.query("ALTER TABLE widened ALTER COLUMN n TYPE bigint");
    const { rows } = await database.statements.query<{ n: unknown }>(select, [1]);
    expect(Number(rows[0]?.n)).toBe(2700);
    expect(database.naming.primary.active).toBe(true);
    expect(refusals).toEqual([]);
  });

  it("sends the query again unnamed, and names nothing more, when the connection lost its statement (a pooler that switched server connections)", async () => {
    const database = open();
    await database.statements.query(SQL, [1]);
    // The server forgets the statement that the client believes it holds, as when a transaction
    // pooler hands the client's next query to another server connection.
    await database.pool.query("DEALLOCATE ALL");
    const { rows } = await database.statements.query<{ n: number }>(SQL, [41]);
    expect(rows).toEqual([{ n: 42 }]);
    expect(database.naming.primary.active).toBe(false);
    await database.statements.query(SQL, [2]);
    expect(await held(database)).toBe(0);
    expect(refusals.map((error) => (error as { code?: string }).code)).toEqual(["26000"]);
  });

  it("sends the query again unnamed when the server connection already holds that name (another client prepared it there)", async () => {
    const database = open();
    await database.statements.query(SQL, [1]);
    // A second client that reaches the same server connection: pg has not parsed the statement
    // on its side, so it sends Parse for a name the server connection holds already.
    const client = await database.pool.connect();
    (client as unknown as { connection: { parsedStatements: Record<string, string> } }).connection.parsedStatements =
      {};
    client.release();
    const { rows } = await database.statements.query<{ n: number }>(SQL, [6]);
    expect(rows).toEqual([{ n: 7 }]);
    expect(database.naming.primary.active).toBe(false);
    expect(refusals.map((error) => (error as { code?: string }).code)).toEqual(["42P05"]);
  });

  it("names nothing inside a transaction, where a pooler's refusal could not be retried", async () => {
    const database = open();
    await database.statements.query(SQL, [1]);
    const client = await database.pool.connect();
    try {
      // As above: the server connection holds the name, pg does not know it.
      (client as unknown as { connection: { parsedStatements: Record<string, string> } }).connection.parsedStatements =
        {};
      await client.query("BEGIN");
      // A query config, as Prisma's adapter sends them (the ones that get named).
      const { rows } = await client.query<{ n: number }>({ text: SQL, values: [2] });
      expect(rows).toEqual([{ n: 3 }]);
      await client.query("COMMIT");
    } finally {
      client.release();
    }
    expect(refusals).toEqual([]);
    expect(database.naming.primary.active).toBe(true);
  });

  it("names nothing when turned off (DATABASE_PREPARED_STATEMENTS=false)", async () => {
    const database = open({ preparedStatements: false });
    await database.statements.query(SQL, [1]);
    expect(await held(database)).toBe(0);
    expect(database.naming.primary.active).toBe(false);
  });

  it("passes on every other error with its SQLSTATE and keeps naming", async () => {
    const database = open();
    await expect(database.statements.query("SELECT 1/$1::int AS n", [0])).rejects.toMatchObject({ code: "22012" });
    expect(database.naming.primary.active).toBe(true);
  });
});
