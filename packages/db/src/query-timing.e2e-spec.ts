import { Query } from "pg";
import { createDatabase, type Database } from "./client";
import { createEmptyTestDatabase, type TestDatabase } from "./testing";

describe("Database.observeQueries", () => {
  let testDb: TestDatabase;
  let db: Database;
  const seen: Array<{ seconds: number; failed: boolean }> = [];
  let stop: () => void;

  beforeAll(async () => {
    testDb = await createEmptyTestDatabase("db_query_timing");
    db = createDatabase({ url: testDb.url, poolMax: 1 });
    // Opens a connection first, so that its session SET is not among the queries counted below.
    await db.pool.query("SELECT 1");
    stop = db.observeQueries((seconds, failed) => seen.push({ seconds, failed }));
  });

  beforeEach(async () => {
    // A connection ready in the pool: a new one's session settings would be a query to count too.
    await db.pool.query("SELECT 1");
    seen.length = 0;
  });

  afterAll(async () => {
    await db?.close();
    await testDb?.drop();
  });

  it("times pool.query (the callback form, as the list statements and Prisma's adapter use it)", async () => {
    await db.pool.query("SELECT pg_sleep(0.02)");
    expect(seen).toEqual([{ seconds: expect.any(Number), failed: false }]);
    expect(seen[0]?.seconds).toBeGreaterThanOrEqual(0.02);
  });

  it("times Prisma's queries and reports failures", async () => {
    await db.prisma.$queryRawUnsafe("SELECT 1");
    await expect(db.prisma.$queryRawUnsafe("SELECT * FROM no_such_table")).rejects.toThrow();
    expect(seen.map((s) => s.failed)).toEqual([false, true]);
  });

  it("times the promise form of a checked-out client", async () => {
    const client = await db.pool.connect();
    try {
      await client.query("SELECT 1");
      await expect(client.query("SELECT 1/0")).rejects.toThrow(/division by zero/);
    } finally {
      client.release();
    }
    expect(seen.map((s) => s.failed)).toEqual([false, true]);
  });

  it("passes a submittable query through untimed", async () => {
    const client = await db.pool.connect();
    try {
      const rows = await new Promise<unknown[]>((resolve, reject) => {
        const query = client.query(new Query("SELECT 1 AS one"));
        const collected: unknown[] = [];
        query.on("row", (row: unknown) => collected.push(row));
        query.on("end", () => resolve(collected));
        query.on("error", reject);
      });
      expect(rows).toEqual([{ one: 1 }]);
    } finally {
      client.release();
    }
    expect(seen).toEqual([]);
  });

  it("stops when told to", async () => {
    stop();
    await db.pool.query("SELECT 1");
    expect(seen).toEqual([]);
  });
});
