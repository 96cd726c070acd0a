import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { connect, createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { createDatabase } from "@community/db";
import { createEmptyTestDatabase, createTestDatabase, type TestDatabase } from "@community/db/testing";
import { loadFixture } from "@community/fixtures";
import { ApiProcess, contractFixture, TOKENS } from "@community/fixtures/testing";
import { TcpProxy } from "../testing/tcp-proxy";

// Unreferenced, so that the bound of a race does not keep jest waiting after the test.
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());

/** A proxy that has reserved its port but refuses connections, like a database host not up yet. */
async function downProxyInFrontOf(url: string): Promise<TcpProxy> {
  const proxy = await TcpProxy.inFrontOf(url);
  await proxy.cut();
  return proxy;
}

async function statusOf(url: string): Promise<number> {
  return (await fetch(url)).status;
}

/** Readiness turns 200 within 10 s of the database coming up, and a list page is served. */
async function expectReadyThenServing(origin: string): Promise<void> {
  let ready = 0;
  for (let attempt = 0; attempt < 100 && ready !== 200; attempt++) {
    await sleep(100);
    ready = await statusOf(`${origin}/health/ready`);
  }
  expect(ready).toBe(200);
  const page = await fetch(`${origin}/v1/me/community/team/events`, {
    headers: { Authorization: `Bearer ${TOKENS.runner}` },
  });
  expect(page.status).toBe(200);
}

describe("an api started while its database is down", () => {
  let testDb: TestDatabase;

  beforeAll(async () => {
    testDb = await createTestDatabase("database_wait");
    const database = createDatabase({ url: testDb.url, poolMax: 1 });
    await loadFixture(database.prisma, contractFixture());
    await database.close();
  });

  afterAll(async () => {
    await testDb?.drop();
  });

  it("stays up and not ready, logs the wait once, and becomes ready when the database appears", async () => {
    const proxy = await downProxyInFrontOf(testDb.url);
    const api = new ApiProcess({ DATABASE_URL: proxy.route(testDb.url), HOST: "127.0.0.1", PORT: "0" });
    try {
      const port = await api.listening();
      const base = `http://127.0.0.1:${port}`;
      // Long enough for several attempts (250 ms, then doubling).
      await sleep(2_000);
      expect(await statusOf(`${base}/health/live`)).toBe(200);
      const notReady = await fetch(`${base}/health/ready`);
      expect(notReady.status).toBe(503);
      expect(notReady.headers.get("retry-after")).not.toBeNull();
      expect(await statusOf(`${base}/oauth/.well-known/openid-configuration`)).toBe(503);
      const waits = api.entries().filter((entry) => String(entry.msg).startsWith("cannot reach the database"));
      expect(waits).toHaveLength(1);

      await proxy.start();
      await expectReadyThenServing(base);
      let discovery = 0;
      for (let attempt = 0; attempt < 50 && discovery !== 200; attempt++) {
        discovery = await statusOf(`${base}/oauth/.well-known/openid-configuration`);
        if (discovery !== 200) await sleep(100);
      }
      expect(discovery).toBe(200);
      // Readiness asks the database itself; the start-up wait notices on its own next attempt
      // (backoff capped at 5 s), so its line may come a little later.
      const reachable = () =>
        api.entries().filter((entry) => String(entry.msg).startsWith("the database is reachable after"));
      for (let attempt = 0; attempt < 60 && reachable().length === 0; attempt++) await sleep(100);
      const messages = api.entries().map((entry) => String(entry.msg));
      expect(messages.filter((msg) => msg.startsWith("cannot reach the database"))).toHaveLength(1);
      expect(reachable()).toHaveLength(1);
    } finally {
      api.kill("SIGTERM");
      expect(await api.exited).toBe(0);
      await proxy.cut();
    }
  }, 60_000);

  it("waits for a unix socket that does not exist yet like an unreachable host, then serves through it", async () => {
    // DATABASE_URL names a socket directory that is not there yet (PostgreSQL not started).
    const base = mkdtempSync(path.join(tmpdir(), "community-socket-"));
    const socketDir = path.join(base, "run");
    const target = new URL(testDb.url);
    const url = `postgresql://${target.username}@localhost${target.pathname}?host=${encodeURIComponent(socketDir)}`;
    const api = new ApiProcess({ DATABASE_URL: url, HOST: "127.0.0.1", PORT: "0" });
    let socket: Server | undefined;
    try {
      const port = await api.listening();
      const origin = `http://127.0.0.1:${port}`;
      await sleep(1_000);
      expect(api.stderr).toBe("");
      expect(await statusOf(`${origin}/health/live`)).toBe(200);
      expect(await statusOf(`${origin}/health/ready`)).toBe(503);
      expect(api.entries().filter((entry) => String(entry.msg).startsWith("cannot reach the database"))).toHaveLength(
        1,
      );

      // The server comes up: its socket appears, forwarding to the test server's TCP port.
      mkdirSync(socketDir);
      socket = createServer((client) => {
        const upstream = connect(Number(target.port || 5432), target.hostname);
        client.pipe(upstream).pipe(client);
        client.on("error", () => upstream.destroy());
        upstream.on("error", () => client.destroy());
      });
      await new Promise<void>((resolve) => socket?.listen(path.join(socketDir, ".s.PGSQL.5432"), resolve));
      await expectReadyThenServing(origin);
    } finally {
      api.kill("SIGTERM");
      await api.exited;
      socket?.close();
      rmSync(base, { recursive: true, force: true });
    }
    expect(api.stderr).not.toMatch(/\n\s+at /);
  }, 60_000);

  it("still refuses to serve a database that turns out to have pending migrations, exiting 1", async () => {
    const empty = await createEmptyTestDatabase("database_wait_pending");
    const proxy = await downProxyInFrontOf(empty.url);
    try {
      const api = new ApiProcess({ DATABASE_URL: proxy.route(empty.url), HOST: "127.0.0.1", PORT: "0" });
      await api.listening();
      await proxy.start();
      const exit = await Promise.race([api.exited, sleep(20_000).then(() => "still running")]);
      expect(exit).toBe(1);
      expect(api.stderr).toMatch(/Cannot serve: the database has \d+ pending migration\(s\).*pnpm db:migrate/);
    } finally {
      await proxy.cut();
      await empty.drop();
    }
  }, 60_000);
});
