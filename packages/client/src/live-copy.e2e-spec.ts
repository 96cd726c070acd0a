import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ApiProcess, until } from "@community/fixtures/testing";
import { ExampleProcess } from "./testing/example-process";

const PACKAGE_DIR = path.resolve(__dirname, "..");
const ROOT = path.resolve(PACKAGE_DIR, "../..");
const EXAMPLE = path.join(PACKAGE_DIR, "examples/live-copy.mjs");
const SEED_CLI = path.join(ROOT, "apps/seed/dist/cli.js");
const SYNC_DOC = path.join(ROOT, "docs/sync.md");

/** The ```lang blocks of docs/sync.md. */
const blocks = (lang: string) =>
  [...readFileSync(SYNC_DOC, "utf8").matchAll(new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\`$`, "gm"))].map(
    (m) => m[1] ?? "",
  );

/**
 * docs/sync.md on the embedded demo, as a newcomer runs it: the compiled api with no DATABASE_URL,
 * the "Live copy" program (packages/client/examples/live-copy.mjs, shown whole on the page)
 * following the runners' events, and the page's `pnpm seed` block loading a new event into the
 * running demo through the embedded database's loopback port: the held request wakes and the copy
 * gets it.
 */
describe("the live copy of docs/sync.md on the embedded demo", () => {
  let scratch: string;
  let api: ApiProcess;
  let baseUrl: string;
  let databaseUrl: string;
  let copy: ExampleProcess;

  beforeAll(async () => {
    scratch = mkdtempSync(path.join(os.tmpdir(), "live-copy-"));
    api = new ApiProcess({ PORT: "0", EMBEDDED_DATA_DIR: path.join(scratch, "pglite") });
    baseUrl = `http://127.0.0.1:${await api.listening(240_000)}`;
    // The ready text (stderr, after the "listening" line) names the embedded database's URL.
    await until(() => /DATABASE_URL='[^']+' pnpm seed/.test(api.stderr), "the ready text names the database");
    databaseUrl = /DATABASE_URL='([^']+)' pnpm seed/.exec(api.stderr)?.[1] ?? "";
    copy = new ExampleProcess(EXAMPLE, scratch, {
      PATH: process.env.PATH,
      COMMUNITY_API_URL: baseUrl,
      COMMUNITY_API_TOKEN: "demo-token-runners",
    });
  }, 300_000);

  afterAll(async () => {
    await copy?.stop("SIGKILL");
    if (api) {
      api.kill("SIGTERM");
      await api.exited;
    }
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it("is shown whole on the page", () => {
    expect(blocks("js")).toContain(readFileSync(EXAMPLE, "utf8"));
  });

  it("walks the runners' 40 events, is woken by the page's seed block, and reports what it applied when stopped", async () => {
    await until(() => /^40 upserts, 0 deletes: 40 events$/m.test(copy.stdout), "the first walk is done", 60_000);
    const seedBlock = blocks("sh").find((block) => block.includes("pnpm seed --file new-event.json"));
    expect(seedBlock).toBeDefined();
    // As pasted, but with the compiled seed (the suite runs after the build) and this start's port.
    const port = new URL(databaseUrl).port;
    const script = (seedBlock ?? "")
      .replaceAll("pnpm seed", `node ${JSON.stringify(SEED_CLI)}`)
      .replaceAll("127.0.0.1:5499", `127.0.0.1:${port}`);
    const before = copy.stdout.length;
    const started = Date.now();
    const seeded = spawnSync("bash", ["-e"], { input: script, cwd: scratch, encoding: "utf8", timeout: 60_000 });
    expect(seeded.stderr).toBe("");
    expect(seeded.status).toBe(0);
    await until(
      () => /^1 upserts, 0 deletes: 41 events$/m.test(copy.stdout.slice(before)),
      "the copy gets the new event",
    );
    // Polled every second on the embedded database, plus the seed's own start.
    expect(Date.now() - started).toBeLessThan(15_000);

    expect(await copy.stop("SIGTERM")).toBe(0);
    expect(copy.stdout).toMatch(/^stopped after 41 upserts and 0 deletes$/m);
    expect(copy.stderr).toBe("");
  }, 120_000);
});
