import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createDatabase, type Database } from "@community/db";
import { createTestDatabase, type TestDatabase } from "@community/db/testing";
import { fixtureEvent } from "@community/domain/testing";
import { loadFixture } from "@community/fixtures";
import { rowCounts, smallFixture, snapshot } from "@community/fixtures/testing";

const CLI = path.resolve(__dirname, "../dist/cli.js");
/** Enough events that the COPY lasts well over the polling interval below. */
const EVENTS = 150_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

// The seed command killed outright (no signal handler, no ROLLBACK sent) in the middle of its COPY:
// PostgreSQL aborts the open transaction, and the database is as it was before the command ran.
describe("seed command killed mid-COPY", () => {
  let testDb: TestDatabase;
  let db: Database;
  let dir: string;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`pnpm build\` first`);
    testDb = await createTestDatabase("seed_kill");
    db = createDatabase({ url: testDb.url, poolMax: 2 });
    dir = await mkdtemp(path.join(tmpdir(), "seed-kill-"));
  });

  afterAll(async () => {
    if (child?.exitCode === null) child.kill("SIGKILL");
    await db?.close();
    await testDb?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("leaves every table and team_list_stats unchanged", async () => {
    await loadFixture(db, smallFixture());
    const stats = () => db.pool.query("SELECT team_id, list, item_count, version FROM team_list_stats ORDER BY 1, 2");
    const before = { rows: await snapshot(db.prisma), stats: (await stats()).rows };
    const large = smallFixture();
    for (let i = 0; i < EVENTS; i++) large.events.push(fixtureEvent(`ev_big_${i}`, { slug: `big-${i}` }));
    const file = path.join(dir, "large.json");
    await writeFile(file, JSON.stringify(large));

    const exited = new Promise<NodeJS.Signals | null>((resolve) => {
      child = spawn(process.execPath, [CLI, "--file", file], {
        env: { ...process.env, DATABASE_URL: testDb.url },
        stdio: ["ignore", "ignore", "pipe"],
      });
      child.stderr?.resume();
      child.on("exit", (_code, signal) => resolve(signal));
    });
    const copying = await until(
      "the seed command's COPY to start",
      async () => {
        const { rows } = await db.pool.query<{ pid: number; tuples: string }>(
          `SELECT pid, tuples_processed::text AS tuples FROM pg_stat_progress_copy
            WHERE datname = current_database() AND command = 'COPY FROM' AND tuples_processed > 0`,
        );
        return rows[0];
      },
      60_000,
    );
    child?.kill("SIGKILL");
    expect(await exited).toBe("SIGKILL");
    // Killed while rows were streaming: some had arrived, not all.
    expect(Number(copying.tuples)).toBeLessThan(EVENTS);

    // The server notices the closed socket and ends the backend, rolling its transaction back.
    await until(
      "the killed command's backend to end",
      async () => {
        const { rows } = await db.pool.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1", [copying.pid]);
        return rows.length === 0 ? true : undefined;
      },
      30_000,
    );
    expect({ rows: await snapshot(db.prisma), stats: (await stats()).rows }).toEqual(before);
    expect(await rowCounts(db.prisma)).toMatchObject({ events: 3, guides: 2, accounts: 2 });
  }, 120_000);
});
