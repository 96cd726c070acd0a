import { Pool } from "pg";
import { PreparedStatements } from "./prepared-statements";
import { createTestDatabase, type TestDatabase } from "./testing";

const SQL = "SELECT $1::int + 1 AS n";
const HELD_SQL = "SELECT count(*)::int AS held FROM pg_prepared_statements WHERE name LIKE 'cts\\_%'";

describe("PreparedStatements on a real PostgreSQL", () => {
  let testDb: TestDatabase;
  let pool: Pool;

  beforeAll(async () => {
    testDb = await createTestDatabase("db_prepared");
  });

  beforeEach(() => {
    // One connection: the statements a query prepared are the ones the next query sees.
    pool = new Pool({ connectionString: testDb.url, max: 1 });
  });

  afterEach(async () => {
    await pool.end();
  });

  afterAll(async () => {
    await testDb?.drop();
  });

  it("prepares a statement once per connection and answers from it", async () => {
    const statements = new PreparedStatements(pool);
    for (let i = 0; i < 3; i += 1) {
      const { rows } = await statements.query<{ n: number }>(SQL, [i]);
      expect(rows).toEqual([{ n: i + 1 }]);
    }
    const { rows } = await pool.query<{ held: number }>(HELD_SQL);
    expect(rows[0]?.held).toBe(1);
    expect(statements.active).toBe(true);
  });

  it("sends the query again unnamed, and names nothing more, when the connection lost its statement (a pooler that switched server connections)", async () => {
    const refusals: Error[] = [];
    const statements = new PreparedStatements(pool, true, (error) => refusals.push(error));
    await statements.query(SQL, [1]);
    // The server forgets the statement that the client believes it holds, as when a transaction
    // pooler hands the client's next query to another server connection.
    await pool.query("DEALLOCATE ALL");
    const { rows } = await statements.query<{ n: number }>(SQL, [41]);
    expect(rows).toEqual([{ n: 42 }]);
    expect(statements.active).toBe(false);
    await statements.query(SQL, [2]);
    expect((await pool.query<{ held: number }>(HELD_SQL)).rows[0]?.held).toBe(0);
    expect(refusals.map((error) => (error as { code?: string }).code)).toEqual(["26000"]);
  });

  it("sends the query again unnamed when the server connection already holds that name (another client prepared it there)", async () => {
    const client = await pool.connect();
    try {
      const onClient = { query: client.query.bind(client) } as unknown as Pool;
      await new PreparedStatements(onClient).query(SQL, [1]);
      // A second client that reaches the same server connection: pg has not parsed the statement
      // on its side, so it sends Parse for a name the server connection holds already.
      (client as unknown as { connection: { parsedStatements: Record<string, string> } }).connection.parsedStatements =
        {};
      const statements = new PreparedStatements(onClient);
      const { rows } = await statements.query<{ n: number }>(SQL, [6]);
      expect(rows).toEqual([{ n: 7 }]);
      expect(statements.active).toBe(false);
    } finally {
      client.release();
    }
  });

  it("names nothing when turned off (DATABASE_PREPARED_STATEMENTS=false)", async () => {
    const statements = new PreparedStatements(pool, false);
    await statements.query(SQL, [1]);
    expect((await pool.query<{ held: number }>(HELD_SQL)).rows[0]?.held).toBe(0);
    expect(statements.active).toBe(false);
  });

  it("passes on every other error and keeps naming", async () => {
    const statements = new PreparedStatements(pool);
    await expect(statements.query("SELECT 1/$1::int AS n", [0])).rejects.toMatchObject({ code: "22012" });
    expect(statements.active).toBe(true);
  });
});
