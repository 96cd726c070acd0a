import { createTestDatabase, type TestDatabase } from "@community/db/testing";
import { ApiProcess } from "@community/fixtures/testing";

/**
 * What a start prints before it serves: one line of what was configured and the "listening" line,
 * not Nest's narration of every module and route (about 50 lines), which stays at debug.
 */
describe("the log lines of a start", () => {
  let testDb: TestDatabase;

  beforeAll(async () => {
    testDb = await createTestDatabase("start-logs");
  });

  afterAll(async () => {
    await testDb?.drop();
  });

  async function startLines(logLevel: string) {
    // A password in the URL (trust authentication ignores it): it must not reach the log.
    const url = new URL(testDb.url);
    url.password = "not-for-logs";
    const api = new ApiProcess({
      DATABASE_URL: url.toString(),
      REDIS_URL: process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379",
      HOST: "127.0.0.1",
      PORT: "0",
      LOG_LEVEL: logLevel,
    });
    try {
      await api.listening(60_000);
      const entries = api.entries();
      const listening = entries.findIndex((entry) => String(entry.msg).startsWith("listening on"));
      return { before: entries.slice(0, listening + 1), raw: api.stdout.join("\n") };
    } finally {
      api.kill("SIGTERM");
      await api.exited;
    }
  }

  it("logs two lines at info up to listening: what was configured, then the address", async () => {
    const { before, raw } = await startLines("info");
    expect(before.map((entry) => entry.msg)).toEqual([
      expect.stringMatching(
        /^configured: database PostgreSQL at 127\.0\.0\.1:5432\/\S+; read replica none; rate limits in Redis at [^;]+; issuer http:\/\/localhost:0\/oauth \(built in\); public URL http:\/\/localhost:0$/,
      ),
      expect.stringMatching(/^listening on 127\.0\.0\.1:\d+$/),
    ]);
    expect(raw).not.toContain("not-for-logs");
  }, 90_000);

  it("keeps Nest's narration of modules and routes at debug", async () => {
    const { before } = await startLines("debug");
    const contexts = new Set(before.filter((entry) => entry.level === 20).map((entry) => entry.context));
    expect([...contexts]).toEqual(expect.arrayContaining(["InstanceLoader", "RoutesResolver", "RouterExplorer"]));
  }, 90_000);
});
