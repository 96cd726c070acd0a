import { Client } from "pg";
import { createDatabase, type Database } from "./client";
import { isDatabaseUnavailableError } from "./errors";
import { listMigrations, listRepeatables, migrationState } from "./migrations";
import { PrismaStatements } from "./prisma-statements";
import { QueryReadTimeoutError } from "./query-watchdog";
import { createEmptyTestDatabase, createTestDatabase, type TestDatabase } from "./testing";

describe("database package on a real PostgreSQL", () => {
  let testDb: TestDatabase;
  let db: Database;
  // pg 8 warns ("Calling client.query() when the client is already executing a query is
  // deprecated") and pg 9 will refuse when a client is given a query while another waits in its
  // queue: the queries that met one, seen where pg checks it.
  const queuedBehindAnother: string[] = [];
  const query = Client.prototype.query;

  beforeAll(async () => {
    jest.spyOn(Client.prototype, "query").mockImplementation(function spied(this: Client, ...args: unknown[]) {
      if ((this as unknown as { _queryQueue: unknown[] })._queryQueue.length > 0)
        queuedBehindAnother.push(String(args[0]));
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as Client["query"]);
    testDb = await createTestDatabase("db_client");
    db = createDatabase({ url: testDb.url, poolMax: 4 });
    await db.prisma.team.create({ data: { id: "t1", name: "Team" } });
  });

  afterAll(async () => {
    jest.restoreAllMocks();
    await db?.close();
    await testDb?.drop();
  });

  it("migrationState reports nothing pending on a migrated database", async () => {
    expect(await migrationState(db.pool)).toEqual({ pending: [], failed: [], inProgress: [] });
  });

  it("migrationState reports every shipped migration on an empty database", async () => {
    const empty = await createEmptyTestDatabase("db_empty");
    const emptyDb = createDatabase({ url: empty.url, poolMax: 1 });
    try {
      expect(await migrationState(emptyDb.pool)).toEqual({
        pending: [...listMigrations(), ...listRepeatables().map((name) => `repeatable/${name}`)],
        failed: [],
        inProgress: [],
      });
    } finally {
      await emptyDb.close();
      await empty.drop();
    }
  });

  it("rejects what the CHECK constraints forbid, whoever writes it", async () => {
    await db.prisma.account.create({
      data: { id: "a1", slug: "a1", name: "A", partner: false },
    });
    const event = {
      id: "e1",
      teamId: "t1",
      accountId: "a1",
      slug: "e1",
      name: "E",
      durationSeconds: 1,
      scheduledAt: new Date(),
      offerReplayPurchase: false,
      priceInCents: 100,
      currency: "USD",
    };
    await expect(db.prisma.event.create({ data: { ...event, priceInCents: -1 } })).rejects.toThrow();
    await expect(db.prisma.event.create({ data: { ...event, currency: "usd" } })).rejects.toThrow();
    await expect(db.prisma.event.create({ data: { ...event, durationSeconds: -5 } })).rejects.toThrow();
    await expect(db.prisma.event.create({ data: event })).resolves.toMatchObject({ id: "e1" });
  });

  it("orders ids byte-wise (C collation) whatever the server's locale", async () => {
    await db.prisma.team.createMany({ data: ["b", "B", "a_2", "a-1", "a10"].map((id) => ({ id, name: id })) });
    const ids = (await db.prisma.team.findMany({ orderBy: { id: "asc" }, select: { id: true } })).map((t) => t.id);
    expect(ids).toEqual([...ids].sort());
  });

  it("fails fast with a connection error when the server cannot be reached", async () => {
    const unreachable = createDatabase({ url: "postgresql://postgres@127.0.0.1:1/none", connectTimeoutMs: 500 });
    try {
      const error = await unreachable.prisma.team.count().then(
        () => undefined,
        (e: unknown) => e,
      );
      // the api turns exactly these into 503s
      expect(isDatabaseUnavailableError(error)).toBe(true);
    } finally {
      await unreachable.close();
    }
  });

  describe("with a read replica (readUrl)", () => {
    it("reads from the primary only, without a replica", () => {
      expect(db.prismaReads).toBe(db.prisma);
      expect(db.replica).toBeUndefined();
    });

    it("sends a read the replica cannot reach to the primary, until its breaker opens and after", async () => {
      const replicated = createDatabase({
        url: testDb.url,
        readUrl: "postgresql://postgres@127.0.0.1:1/none",
        connectTimeoutMs: 500,
        breakerThreshold: 2,
        breakerProbeMs: 60_000,
      });
      try {
        for (let i = 0; i < 3; i++) {
          const { rows } = await new PrismaStatements(replicated.prismaReads).query<{ n: number }>(
            "SELECT count(*)::int AS n FROM teams WHERE id = $1",
            ["t1"],
          );
          expect(rows).toEqual([{ n: 1 }]);
        }
        expect(replicated.replica?.breaker.state).toBe("open");
        expect(replicated.replica?.fallbacksTotal).toBe(3);
        // The primary's own breaker saw nothing of it.
        expect(replicated.breaker.state).toBe("closed");
      } finally {
        await replicated.close();
      }
    });

    it("retries a query cancelled by replication on the primary, and not a bad query", async () => {
      const replicated = createDatabase({ url: testDb.url, readUrl: testDb.url });
      try {
        await expect(
          new PrismaStatements(replicated.prismaReads).query("SELECT * FROM no_such_table", []),
        ).rejects.toMatchObject({
          code: "42P01",
        });
        expect(replicated.replica?.fallbacksTotal).toBe(0);
        // A recovery conflict is SQLSTATE 40001; this one is raised on both, so the primary's error surfaces.
        const conflict = "DO $$ BEGIN RAISE EXCEPTION 'conflict with recovery' USING ERRCODE = '40001'; END $$";
        await expect(new PrismaStatements(replicated.prismaReads).query(conflict, [])).rejects.toMatchObject({
          code: "40001",
        });
        expect(replicated.replica?.fallbacksTotal).toBe(1);
        expect(replicated.replica?.breaker.state).toBe("closed");
      } finally {
        await replicated.close();
      }
    });

    it("sends a read that outlasts the read bound on the replica to the primary, and takes the replica out", async () => {
      const replicated = createDatabase({
        url: testDb.url,
        readUrl: testDb.url,
        readTimeoutMs: 100,
        breakerProbeMs: 60_000,
      });
      try {
        // The same statement is as slow on the primary, which (unbounded) answers it.
        const { rows } = await new PrismaStatements(replicated.prismaReads).query<{ done: boolean }>(
          "SELECT pg_sleep(0.3) IS NOT NULL AS done",
          [],
        );
        expect(rows).toEqual([{ done: true }]);
        expect(replicated.replica?.fallbacksTotal).toBe(1);
        expect(replicated.replica?.breaker.state).toBe("open");
        expect(replicated.breaker.state).toBe("closed");
      } finally {
        await replicated.close();
      }
    });
  });
  describe("the client-side bound on a query", () => {
    // The server does not cancel it: the session's statement_timeout is lifted by the statement
    // itself, as a server that stopped answering would not cancel it either.
    const UNANSWERED = "SET statement_timeout = 0; SELECT pg_sleep(3)";

    it("fails a query the server does not answer with a read timeout, drops its connection and counts it against the breaker", async () => {
      // Bound: the statement timeout plus a second.
      const bounded = createDatabase({ url: testDb.url, poolMax: 2, statementTimeoutMs: 100, breakerThreshold: 1 });
      try {
        await bounded.pool.query("SELECT 1");
        const started = performance.now();
        const error = await bounded.pool.query(UNANSWERED).then(
          () => undefined,
          (e: unknown) => e,
        );
        const waited = performance.now() - started;
        expect(error).toBeInstanceOf(QueryReadTimeoutError);
        expect(isDatabaseUnavailableError(error)).toBe(true);
        expect(waited).toBeGreaterThanOrEqual(1_100);
        // The connection that carried it is gone; the one breaker failure opened it (threshold 1).
        expect(bounded.pool.totalCount).toBe(0);
        expect(bounded.breaker.state).toBe("open");
      } finally {
        await bounded.close();
      }
    });

    it("fails an unanswered query on a checked-out connection, which then stays usable for nobody", async () => {
      const bounded = createDatabase({ url: testDb.url, poolMax: 1, statementTimeoutMs: 100, breakerProbeMs: 60_000 });
      const client = await bounded.pool.connect();
      try {
        // One query at a time, as pg 9 will require: the connection's session settings (sent on
        // connect) may still be ahead of it, which the bound counts from its own submission.
        await expect(client.query(UNANSWERED)).rejects.toMatchObject({ name: "QueryReadTimeoutError" });
        await expect(client.query("SELECT 1")).rejects.toThrow(/not queryable/);
      } finally {
        client.release(true);
        await bounded.close();
      }
    });

    it("does not cut a connection that answered everything, however long it then idles", async () => {
      const idleErrors: Error[] = [];
      const bounded = createDatabase({
        url: testDb.url,
        poolMax: 2,
        statementTimeoutMs: 100,
        onIdleError: (error) => idleErrors.push(error),
      });
      try {
        // Answers, failures and rejections of every form: each settles its own entry.
        await Promise.all(Array.from({ length: 20 }, (_, i) => bounded.pool.query("SELECT $1::int AS i", [i])));
        await expect(bounded.pool.query("SELECT * FROM no_such_table")).rejects.toMatchObject({ code: "42P01" });
        await expect(bounded.pool.query("SELECT pg_sleep(1)")).rejects.toMatchObject({ code: "57014" });
        const client = await bounded.pool.connect();
        try {
          await client.query("SELECT 1");
          await expect(client.query("SELECT 1/0")).rejects.toMatchObject({ code: "22012" });
          await new Promise<void>((resolve, reject) =>
            client.query("SELECT 2", (error: Error) => (error ? reject(error) : resolve())),
          );
        } finally {
          client.release();
        }
        const connections = bounded.pool.totalCount;
        // Past the bound (1.1 s) and a tick.
        await new Promise((resolve) => setTimeout(resolve, 1_400));
        expect(bounded.pool.totalCount).toBe(connections);
        expect(idleErrors).toEqual([]);
        expect((await bounded.pool.query<{ one: number }>("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
      } finally {
        await bounded.close();
      }
    });

    it("arms no timer per query for its bound", async () => {
      const bounded = createDatabase({ url: testDb.url, poolMax: 4, statementTimeoutMs: 2_345 });
      const setTimeoutSpy = jest.spyOn(global, "setTimeout");
      try {
        await Promise.all(Array.from({ length: 40 }, () => bounded.pool.query("SELECT 1")));
        // pg's own query_timeout armed one for each, of the bound's length (3,345 ms here).
        const bound = setTimeoutSpy.mock.calls.filter(([, ms]) => ms === 3_345);
        expect(bound).toHaveLength(0);
      } finally {
        setTimeoutSpy.mockRestore();
        await bounded.close();
      }
    });
  });

  // Last, after every query above has been sent.
  it("gives pg no query while another waits on the same client (deprecated in pg 8)", () => {
    expect(queuedBehindAnother).toEqual([]);
  });
});
