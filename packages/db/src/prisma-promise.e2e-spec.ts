import { createDatabase, type Database } from "./client";
import { createTestDatabase, type TestDatabase } from "./testing";

/**
 * The query promise of the patched Prisma client (patches/@prisma__client@6.19.3.patch: an
 * instance of a class instead of an object literal of closures) behaves as Prisma's own: lazy
 * until awaited, one run per query, in a batch transaction and in an interactive one.
 */
describe("Prisma's query promise, as patched", () => {
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

  it("is a PrismaPromise whose methods are shared, not made per query", () => {
    const first = db.prisma.$queryRawUnsafe("SELECT 1");
    const second = db.prisma.$queryRawUnsafe("SELECT 2");
    expect(Object.prototype.toString.call(first)).toBe("[object PrismaPromise]");
    expect(first.then).toBe(second.then);
    expect(Object.getOwnPropertyNames(first)).toEqual([]);
  });

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
