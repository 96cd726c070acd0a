import { createDatabase, type Database } from "./client";
import { createTestDatabase, type TestDatabase } from "./testing";

/**
 * What patches/@prisma__client@6.19.3.patch changes in the client's request path, held to the
 * behaviour of the unpatched client: a raw query is planned from the request object (no JSON text
 * of it is made unless the query compiler must plan it), the value generators are shared by every
 * query's interpreter, and the debug logger's answer follows DEBUG when it changes.
 */
describe("Prisma's raw requests, as patched", () => {
  let testDb: TestDatabase;
  let db: Database;

  beforeAll(async () => {
    testDb = await createTestDatabase("db_prisma_raw_requests");
    db = createDatabase({ url: testDb.url, poolMax: 2 });
  });

  afterEach(() => {
    jest.restoreAllMocks();
  });

  afterAll(async () => {
    await db?.close();
    await testDb?.drop();
  });

  /** The requests that JSON.stringify was given while `run` ran: objects with an `action`. */
  async function requestsStringified<T>(run: () => Promise<T>): Promise<{ result: T; actions: string[] }> {
    const stringify = JSON.stringify;
    const actions: string[] = [];
    jest.spyOn(JSON, "stringify").mockImplementation(function (this: unknown, value: unknown, ...rest: unknown[]) {
      const action = (value as { action?: unknown } | null)?.action;
      if (typeof action === "string") actions.push(action);
      return (stringify as (...args: unknown[]) => string).call(this, value, ...rest);
    });
    const result = await run();
    jest.restoreAllMocks();
    return { result, actions };
  }

  it("plans a raw query of the list statements' parameter kinds without a JSON text of the request", async () => {
    const at = new Date("2026-11-27T10:02:16.721Z");
    const { result, actions } = await requestsStringified(() =>
      db.prisma.$queryRawUnsafe<Array<Record<string, unknown>>>(
        "SELECT $1::text AS text, $2::int AS int, $3::timestamptz AS at, $4::bigint AS big, " +
          "$5::text[] AS list, $6::bool AS flag, $7::text AS nothing, $8::bytea AS bytes",
        "team-1",
        25,
        at,
        9_007_199_254_740_993n,
        ["live", "scheduled"],
        true,
        null,
        Buffer.from([0, 1, 2]),
      ),
    );
    expect(actions).toEqual([]);
    expect(result).toEqual([
      {
        text: "team-1",
        int: 25,
        at,
        big: 9_007_199_254_740_993n,
        list: ["live", "scheduled"],
        flag: true,
        nothing: null,
        bytes: new Uint8Array([0, 1, 2]),
      },
    ]);
  });

  it("leaves to the query compiler, through the request's JSON text, what only it plans", async () => {
    const { result, actions } = await requestsStringified(() =>
      db.prisma.$queryRawUnsafe<Array<{ half: number }>>("SELECT $1::float8 AS half", 0.5),
    );
    expect(actions).toEqual(["queryRaw"]);
    expect(result).toEqual([{ half: 0.5 }]);
  });

  it("reports a failed raw query with the driver's message, planned either way", async () => {
    await expect(db.prisma.$queryRawUnsafe("SELECT * FROM no_such_table WHERE n = $1", 1)).rejects.toThrow(
      /no_such_table/,
    );
    await expect(db.prisma.$queryRawUnsafe("SELECT * FROM no_such_table WHERE n = $1", 1.5)).rejects.toThrow(
      /no_such_table/,
    );
  });

  it("answers queries that run at once, each with its own parameters", async () => {
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => db.prisma.$queryRawUnsafe<Array<{ n: number }>>("SELECT $1::int AS n", i)),
    );
    expect(answers.map((rows) => rows[0]?.n)).toEqual(Array.from({ length: 40 }, (_, i) => i));
  });

  it("follows DEBUG when it changes: a namespace turned on logs, turned off again does not", async () => {
    const globals = globalThis as { DEBUG?: string };
    const before = globals.DEBUG;
    const warn = jest.spyOn(console, "warn").mockImplementation(() => undefined);
    const logged = () => warn.mock.calls.filter((call) => String(call[0]).includes("prisma:client")).length;
    try {
      await db.prisma.$queryRawUnsafe("SELECT 1");
      expect(logged()).toBe(0);
      globals.DEBUG = "prisma:client*";
      await db.prisma.$queryRawUnsafe("SELECT 1");
      const whileOn = logged();
      expect(whileOn).toBeGreaterThan(0);
      globals.DEBUG = "";
      await db.prisma.$queryRawUnsafe("SELECT 1");
      expect(logged()).toBe(whileOn);
    } finally {
      globals.DEBUG = before;
    }
  });
});
