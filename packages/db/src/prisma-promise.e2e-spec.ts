import { createDatabase, type Database } from "./client";
import { createTestDatabase, type TestDatabase } from "./testing";

/**
 * Prisma's query promise as the code relies on it: lazy until awaited, one run per query, in a
 * batch transaction and in an interactive one (with the transaction bounds createDatabase sets).
 */
describe("Prisma's query promise", () => {
  let testDb: TestDatabase;
  let db: Database;

  beforeAll(async () => {
    testDb = await createTestDatabase("db_prisma_promise");
    db = createDatabase({ url: testDb.url, poolMax: 2 });
    await db.pool.query("CREATE TABLE promise_probe (n int NOT NULL)");
  });

  beforeEach(async () => {
    await db.pool.query("TRUNCATE promise_probe");
  });

  afterAll(async () => {
    await db?.close();
    await testDb?.drop();
  });

  const rows = async () =>
    (await db.pool.query<{ n: number }>("SELECT n FROM promise_probe ORDER BY n")).rows.map((row) => row.n);

  it("sends nothing until it is awaited, then runs its statement once however often it is awaited", async () => {
    const insert = db.prisma.$executeRawUnsafe("INSERT INTO promise_probe VALUES ($1)", 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await rows()).toEqual([]);
    expect(await insert).toBe(1);
    expect(await insert).toBe(1);
    expect(await rows()).toEqual([1]);
  });

  it("rejects through then, catch and finally alike", async () => {
    const failing = () => db.prisma.$queryRawUnsafe("SELECT * FROM no_such_table");
    await expect(failing()).rejects.toThrow(/no_such_table/);
    expect(await failing().catch(() => "caught")).toBe("caught");
    let settled = false;
    await expect(
      failing().finally(() => {
        settled = true;
      }),
    ).rejects.toThrow();
    expect(settled).toBe(true);
  });

  it("runs a batch of queries in one transaction, and none of them when one fails", async () => {
    const results = await db.prisma.$transaction([
      db.prisma.$executeRawUnsafe("INSERT INTO promise_probe VALUES ($1)", 1),
      db.prisma.$executeRawUnsafe("INSERT INTO promise_probe VALUES ($1)", 2),
      db.prisma.$queryRawUnsafe<Array<{ count: number }>>("SELECT count(*)::int AS count FROM promise_probe"),
    ]);
    expect(results).toEqual([1, 1, [{ count: 2 }]]);
    await expect(
      db.prisma.$transaction([
        db.prisma.$executeRawUnsafe("INSERT INTO promise_probe VALUES ($1)", 3),
        db.prisma.$executeRawUnsafe("INSERT INTO promise_probe VALUES (NULL)"),
      ]),
    ).rejects.toThrow();
    expect(await rows()).toEqual([1, 2]);
  });

  it("runs the queries of an interactive transaction in it, rolled back on a throw", async () => {
    await expect(
      db.prisma.$transaction(async (tx) => {
        await tx.$executeRawUnsafe("INSERT INTO promise_probe VALUES ($1)", 5);
        const [seen] = await tx.$queryRawUnsafe<Array<{ count: number }>>(
          "SELECT count(*)::int AS count FROM promise_probe",
        );
        expect(seen?.count).toBe(1);
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    expect(await rows()).toEqual([]);
  });
});
