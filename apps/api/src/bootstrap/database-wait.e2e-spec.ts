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
      let ready = 0;
      for (let attempt = 0; attempt < 100 && ready !== 200; attempt++) {
        await sleep(100);
        ready = await statusOf(`${base}/health/ready`);
      }
      expect(ready).toBe(200);
      const page = await fetch(`${base}/v1/me/community/team/events`, {
        headers: { Authorization: `Bearer ${TOKENS.runner}` },
      });
      expect(page.status).toBe(200);
      let discovery = 0;
      for (let attempt = 0; attempt < 50 && discovery !== 200; attempt++) {
        discovery = await statusOf(`${base}/oauth/.well-known/openid-configuration`);
        if (discovery !== 200) await sleep(100);
      }
      expect(discovery).toBe(200);
      // The background wait logs at its next attempt (backoff up to 5 s), which may come after readiness.
      const reachable = () =>
        api.entries().filter((entry) => String(entry.msg).startsWith("the database is reachable after"));
      for (let attempt = 0; attempt < 80 && reachable().length === 0; attempt++) await sleep(100);
      const messages = api.entries().map((entry) => String(entry.msg));
      expect(messages.filter((msg) => msg.startsWith("cannot reach the database"))).toHaveLength(1);
      expect(reachable()).toHaveLength(1);
    } finally {
      api.kill("SIGTERM");
      expect(await api.exited).toBe(0);
      await proxy.cut();
    }
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
