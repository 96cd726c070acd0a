import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ApiProcess } from "@community/fixtures/testing";

/** Two starts of the compiled api (`pnpm start` without DATABASE_URL) on one embedded data directory. */
describe("the embedded database's data directory", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "embedded-lock-"));
  const dataDir = path.join(dir, "pglite");
  const started: ApiProcess[] = [];
  const start = () => {
    // No HOST: the embedded demo's own default is under test too.
    const api = new ApiProcess({ EMBEDDED_DATA_DIR: dataDir, PORT: "0", LOG_LEVEL: "info" });
    started.push(api);
    return api;
  };

  afterAll(async () => {
    for (const api of started) {
      api.kill("SIGKILL");
      await api.exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it("refuses a second start while the first runs, and is taken over once its holder is gone", async () => {
    const first = start();
    await first.listening(120_000);
    // The demo, with its public tokens, listens on loopback unless HOST says otherwise.
    expect(first.entries().map((e) => e.msg)).toContainEqual(expect.stringMatching(/^listening on 127\.0\.0\.1:\d+$/));
    // Once it listens, the "Ready" banner goes to stderr: stdout (not a terminal) stays JSON lines.
    for (let waited = 0; waited < 10_000 && !first.stderr.includes("Ready."); waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(first.stdout.filter((line) => line.trim() !== "" && !line.startsWith("{"))).toEqual([]);
    expect(first.stderr).toMatch(/^\nReady\. Try it with a demo token/);

    const second = start();
    expect(await second.exited).toBe(1);
    expect(second.stderr).toMatch(
      new RegExp(`Cannot start: the embedded database in ${dataDir} is in use by process \\d+`),
    );
    expect(second.entries().map((e) => e.msg)).not.toContainEqual(expect.stringMatching(/^listening/));

    // A crash leaves the lock behind; its process is gone, so the next start takes it over.
    first.kill("SIGKILL");
    await first.exited;
    const third = start();
    await third.listening(120_000);
    third.kill("SIGTERM");
    expect(await third.exited).toBe(0);
  }, 300_000);
});
