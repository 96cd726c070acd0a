import net from "node:net";
import { Client } from "pg";
import { CircuitOpenError } from "./circuit-breaker";
import { createDatabase, type Database } from "./client";
import { databaseFailure } from "./errors";
import { createTestDatabase, type TestDatabase } from "./testing";

/** The startup packet's parameters (protocol 3.0: length, version, then name\0value\0 pairs). */
function startupParameters(packet: Buffer): Record<string, string> {
  const parts = packet.subarray(8, packet.readUInt32BE(0)).toString("utf8").split("\0");
  const parameters: Record<string, string> = {};
  for (let i = 0; i + 1 < parts.length && parts[i] !== ""; i += 2)
    parameters[parts[i] as string] = parts[i + 1] as string;
  return parameters;
}

describe("the pool's time limits on a real PostgreSQL", () => {
  let testDb: TestDatabase;
  let db: Database;

  beforeAll(async () => {
    testDb = await createTestDatabase("db_limits");
    db = createDatabase({
      url: testDb.url,
      poolMax: 2,
      statementTimeoutMs: 1_500,
      lockTimeoutMs: 300,
      connectTimeoutMs: 500,
    });
  });

  afterAll(async () => {
    await db?.close();
    await testDb?.drop();
  });

  it("sends no startup parameter that PgBouncer would refuse (the timeouts are set after connecting)", async () => {
    let packet: Buffer | undefined;
    const sniffer = net.createServer((socket) => {
      socket.once("data", (data) => {
        packet = data;
        socket.destroy();
      });
    });
    await new Promise<void>((resolve) => sniffer.listen(0, "127.0.0.1", () => resolve()));
    const url = new URL(testDb.url);
    url.port = String((sniffer.address() as net.AddressInfo).port);
    const sniffed = createDatabase({ url: url.toString(), statementTimeoutMs: 1_500, lockTimeoutMs: 300 });
    try {
      await expect(sniffed.pool.query("SELECT 1")).rejects.toThrow();
    } finally {
      await sniffed.close();
      await new Promise((resolve) => sniffer.close(resolve));
    }
    // The parameters PgBouncer accepts in a startup packet (it refuses any other, timeouts included).
    const accepted = ["user", "database", "application_name", "client_encoding", "datestyle", "timezone"];
    const sent = Object.keys(startupParameters(packet as Buffer));
    expect(sent).toContain("user");
    expect(sent.filter((name) => !accepted.includes(name.toLowerCase()))).toEqual([]);
  });

  it("sets statement_timeout and lock_timeout on every pooled connection", async () => {
    const { rows } = await db.pool.query<{ statement: string; lock: string }>(
      "SELECT current_setting('statement_timeout') AS statement, current_setting('lock_timeout') AS lock",
    );
    expect(rows[0]).toEqual({ statement: "1500ms", lock: "300ms" });
  });

  it("turns JIT compilation off on every pooled connection, which a plain connection to this server uses", async () => {
    // A statement past jit_above_cost (0 here) is compiled by a connection with the server's
    // defaults, and not by the pool's: its plan reports no JIT section.
    const jitOf = async (query: (text: string) => Promise<{ rows: Array<Record<string, unknown>> }>) => {
      await query("SET jit_above_cost = 0");
      try {
        const { rows } = await query("EXPLAIN (ANALYZE, FORMAT JSON) SELECT count(*) FROM generate_series(1, 1000) g");
        const plans = rows[0]?.["QUERY PLAN"] as Array<Record<string, unknown>> | undefined;
        return plans?.[0]?.JIT;
      } finally {
        await query("RESET jit_above_cost");
      }
    };
    const plain = new Client({ connectionString: testDb.url });
    await plain.connect();
    try {
      expect(await jitOf((text) => plain.query(text))).toMatchObject({ Functions: expect.any(Number) });
    } finally {
      await plain.end();
    }
    const pooled = await db.pool.connect();
    try {
      expect((await pooled.query("SELECT current_setting('jit') AS jit")).rows[0]).toEqual({ jit: "off" });
      expect(await jitOf((text) => pooled.query(text))).toBeUndefined();
    } finally {
      pooled.release();
    }
  });

  it("gives up on a table locked by another session after the lock timeout, as a `saturated` failure", async () => {
    const locker = new Client({ connectionString: testDb.url });
    await locker.connect();
    try {
      await locker.query("BEGIN");
      await locker.query("LOCK TABLE events IN ACCESS EXCLUSIVE MODE");
      const start = performance.now();
      const error = await db.pool.query("SELECT count(*) FROM events").catch((caught: unknown) => caught);
      const elapsed = performance.now() - start;
      expect(databaseFailure(error)).toBe("saturated");
      expect((error as { code?: string }).code).toBe("55P03");
      expect(elapsed).toBeLessThan(1_500);
    } finally {
      await locker.query("ROLLBACK");
      await locker.end();
    }
  });

  it("tells a full pool (saturated) from an unreachable server", async () => {
    const held = await Promise.all([db.pool.connect(), db.pool.connect()]);
    try {
      const error = await db.pool.query("SELECT 1").catch((caught: unknown) => caught);
      expect(databaseFailure(error)).toBe("saturated");
      expect(db.breaker.state).toBe("closed");
    } finally {
      for (const client of held) client.release();
    }
    expect((await db.pool.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
  });

  it("opens the breaker after consecutive failed connections, refuses at once, and closes when a probe connects", async () => {
    // A port that was just free: nothing listens there until the test listens itself.
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", () => resolve()));
    const port = (holder.address() as net.AddressInfo).port;
    await new Promise((resolve) => holder.close(resolve));
    const url = new URL(testDb.url);
    url.port = String(port);
    const down = createDatabase({
      url: url.toString(),
      connectTimeoutMs: 500,
      breakerThreshold: 2,
      breakerProbeMs: 50,
    });
    const forward = net.createServer((client) => {
      const upstream = net.connect(Number(new URL(testDb.url).port || 5432), "127.0.0.1");
      client.pipe(upstream).pipe(client);
      for (const socket of [client, upstream]) socket.on("error", () => client.destroy());
    });
    try {
      for (let i = 0; i < 2; i++)
        expect(databaseFailure(await down.pool.query("SELECT 1").catch((e) => e))).toBe("unreachable");
      expect(down.breaker.state).toBe("open");
      const start = performance.now();
      const refused = await down.pool.query("SELECT 1").catch((caught: unknown) => caught);
      expect(refused).toBeInstanceOf(CircuitOpenError);
      expect(performance.now() - start).toBeLessThan(50);

      // The server comes back on the same port: the background probe closes the breaker.
      await new Promise<void>((resolve) => forward.listen(port, "127.0.0.1", () => resolve()));
      const closed = new Promise((resolve) => down.breaker.once("close", resolve));
      await closed;
      expect((await down.pool.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
    } finally {
      await down.close();
      await new Promise((resolve) => forward.close(resolve));
    }
  });
});
