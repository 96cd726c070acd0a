import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { MIGRATIONS_DIR, migrateDeploy } from "@community/db";
import { contractFixture, TOKENS } from "@community/fixtures/testing";
import request from "supertest";
import { type E2eApp, startE2eApp } from "../testing/e2e-app";
import { reportFault } from "../testing/fault-report";

/** The lock the next release's migration waits for, so that the test decides when it ends. */
const GATE_KEY = 4_170_017;
const NEXT_MIGRATION = "29990101000000_next_release";
const EVENTS = "/v1/me/community/team/events";

/**
 * A release migrates while the previous release serves: the runner applies the next release's
 * migrations (with the repeatable files) in one transaction, which the gate holds open here. The
 * running api must stay ready the whole time (the migration is the next release's, and an expand
 * migration leaves the old code working); only on PostgreSQL, since the embedded database is one
 * process that migrates itself.
 */
describe("readiness while the next release's migration runs", () => {
  let e2e: E2eApp;
  let schemaDir: string;

  beforeAll(async () => {
    e2e = await startE2eApp("postgres", contractFixture());
    // The next release: this build's schema and migrations, and one more that waits for the gate.
    schemaDir = mkdtempSync(path.join(tmpdir(), "community-next-release-"));
    cpSync(path.join(MIGRATIONS_DIR, ".."), schemaDir, { recursive: true });
    mkdirSync(path.join(schemaDir, "migrations", NEXT_MIGRATION));
    writeFileSync(
      path.join(schemaDir, "migrations", NEXT_MIGRATION, "migration.sql"),
      `SELECT pg_advisory_lock(${GATE_KEY});\nSELECT pg_advisory_unlock(${GATE_KEY});\nALTER TABLE "events" ADD COLUMN "next_release_note" TEXT;\n`,
    );
  }, 120_000);

  afterAll(async () => {
    await e2e?.close();
    rmSync(schemaDir, { recursive: true, force: true });
  });

  const ready = async () => (await request(e2e.server).get("/health/ready")).status;

  it("answers 200 on every readiness probe before, during and after the migration", async () => {
    const gate = await e2e.database.pool.connect();
    let migrating: Promise<unknown> | undefined;
    const starting: number[] = [];
    const during: number[] = [];
    try {
      await gate.query("SELECT pg_advisory_lock($1)", [GATE_KEY]);
      expect(await ready()).toBe(200);
      let settled = false;
      migrating = migrateDeploy(e2e.url, { quiet: true, dir: path.join(schemaDir, "migrations") }).finally(() => {
        settled = true;
      });
      // Until the migration's SQL runs: it waits for the gate (an advisory lock of one 32-bit key).
      let started = false;
      while (!started && !settled) {
        starting.push(await ready());
        const waiting = await e2e.database.pool.query(
          "SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND classid = 0 AND objid = $1",
          [GATE_KEY],
        );
        started = waiting.rowCount === 1;
      }
      expect(started).toBe(true);
      for (let i = 0; i < 20; i++) during.push(await ready());
      const list = await request(e2e.server).get(EVENTS).set("Authorization", `Bearer ${TOKENS.runner}`);
      expect(list.status).toBe(200);
    } finally {
      await gate.query("SELECT pg_advisory_unlock($1)", [GATE_KEY]);
      gate.release();
      await migrating;
    }
    const after = await ready();
    const ok = during.filter((status) => status === 200).length;
    reportFault(
      "migration under traffic",
      `/health/ready answered 200 to ${ok} of ${during.length} probes while the next release's migration ran, then ${after}`,
    );
    expect(starting).toEqual(starting.map(() => 200));
    expect(during).toEqual(during.map(() => 200));
    expect(after).toBe(200);
  }, 120_000);
});
