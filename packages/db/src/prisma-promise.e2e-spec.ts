import { databaseForSuite } from "./testing";

/**
 * Prisma's query promise as the code relies on it: lazy until awaited, one run per query, in a
 * batch transaction and in an interactive one (with the transaction bounds createDatabase sets).
 */
describe("Prisma's query promise", () => {
  const suite = databaseForSuite("db_prisma_promise", 2);

  beforeAll(async () => {
    await suite.database.pool.query("CREATE TABLE promise_probe (n int NOT NULL)");
  });

  beforeEach(async () => {
    await suite.database.pool.query("TRUNCATE promise_probe");
  });

  const rows = async () =>
    (await suite.database.pool.query<{ n: number }>("SELECT n FROM promise_probe ORDER BY n")).rows.map((row) => row.n);

  it("sends nothing until it is awaited, then runs its statement once however often it is awaited", async () => {
    const insert = suite.database.prisma.$executeRawUnsafe("INSERT INTO promise_probe VALUES ($1)", 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await rows()).toEqual([]);
    expect(await insert).toBe(1);
    expect(await insert).toBe(1);
    expect(await rows()).toEqual([1]);
  });

  it("rejects through then, catch and finally alike", async () => {
    const failing = () => suite.database.prisma.$queryRawUnsafe("SELECT * FROM no_such_table");
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
    const results = await suite.database.prisma.$transaction([
      suite.database.prisma.$executeRawUnsafe("INSERT INTO promise_probe VALUES ($1)", 1),
      suite.database.prisma.$executeRawUnsafe("INSERT INTO promise_probe VALUES ($1)", 2),
      suite.database.prisma.$queryRawUnsafe<Array<{ count: number }>>(
        "SELECT count(*)::int AS count FROM promise_probe",
      ),
    ]);
    expect(results).toEqual([1, 1, [{ count: 2 }]]);
    await expect(
      suite.database.prisma.$transaction([
        suite.database.prisma.$executeRawUnsafe("INSERT INTO promise_probe VALUES ($1)", 3),
        suite.database.prisma.$executeRawUnsafe("INSERT INTO promise_probe VALUES (NULL)"),
      ]),
    ).rejects.toThrow();
    expect(await rows()).toEqual([1, 2]);
  });

  it("runs the queries of an interactive transaction in it, rolled back on a throw", async () => {
    await expect(
      suite.database.prisma.$transaction(async (tx) => {
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
