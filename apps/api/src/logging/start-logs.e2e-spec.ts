import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { testDatabaseForSuite } from "@community/db/testing";
import { ApiProcess } from "@community/fixtures/testing";

/**
 * What a start prints before it serves: one line of what was configured and the "listening" line,
 * not Nest's narration of every module and route (about 50 lines), which stays at debug; on the
 * embedded demo, no warning either (its long polls poll by design).
 */
describe("the log lines of a start", () => {
  const testDb = testDatabaseForSuite("start-logs");

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

  it("prints at most 10 lines and no warning up to listening on a default start of the embedded demo", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "start-logs-embedded-"));
    // Nothing but the port and the data directory: the demo as `pnpm start` runs it.
    const api = new ApiProcess({ PORT: "0", EMBEDDED_DATA_DIR: path.join(dataDir, "pglite") });
    try {
      const port = await api.listening(240_000);
      const listening = api.stdout.findIndex((line) => line.includes('"msg":"listening on'));
      // Everything written before the "listening" line: stdout's lines and stderr's before the
      // "Ready." block, which main.ts writes after that line.
      const stderrBefore = (api.stderr.split("Ready. Try it")[0] ?? "")
        .split("\n")
        .filter((line) => line.trim() !== "");
      const before = [...api.stdout.slice(0, listening + 1), ...stderrBefore];
      expect(before.length).toBeLessThanOrEqual(10);
      // The first start creates the database: what was configured, migrations, demo data, address.
      expect(api.entries().map((entry) => entry.msg)).toEqual([
        expect.stringMatching(/^configured: database embedded PostgreSQL in \S+ \(long polls poll every second\); /),
        expect.stringMatching(/^applying \d+ migration\(s\) to the embedded database$/),
        expect.stringMatching(/^loaded the demo data into the empty embedded database: /),
        expect.stringMatching(/^listening on 127\.0\.0\.1:\d+$/),
      ]);
      const answer = await fetch(`http://127.0.0.1:${port}/v1/me/community/team/events`, {
        headers: { authorization: "Bearer demo-token-runners" },
      });
      expect(answer.status).toBe(200);
      // A healthy start and request: nothing at warning (40) or above, on stdout or stderr.
      expect(api.entries().filter((entry) => Number(entry.level) >= 40)).toEqual([]);
      expect(api.stderr).not.toMatch(/warn/i);
    } finally {
      api.kill("SIGTERM");
      await api.exited;
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 300_000);
});
