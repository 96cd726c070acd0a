import request from "supertest";
import { expectProblem } from "../testing/contract-assertions";
import { type ProxiedE2eApp, startE2eAppBehindProxy } from "../testing/e2e-app";

describe("health probes", () => {
  let e2e: ProxiedE2eApp;

  beforeAll(async () => {
    e2e = await startE2eAppBehindProxy();
  });

  afterAll(() => e2e?.close());

  /** GET /health/ready, a 503 problem whose database check says the migrations are not all applied. */
  async function notMigrated(counts: { pending: number; failed: number }) {
    const response = await request(e2e.server).get("/health/ready");
    expectProblem(response, 503, "unavailable");
    expect(response.body.checks.database).toEqual({
      status: "down",
      message: "migrations are not all applied",
      ...counts,
    });
    return response;
  }

  it("GET /health/live answers 200 JSON without authentication", async () => {
    const response = await request(e2e.server).get("/health/live");
    expect(response.status).toBe(200);
    expect(response.headers["content-type"]).toMatch(/^application\/json/);
    expect(response.body).toMatchObject({ status: "ok" });
  });

  it("GET /health/ready answers 200 JSON when the database is reachable and migrated", async () => {
    const response = await request(e2e.server).get("/health/ready");
    expect(response.status).toBe(200);
    expect(response.headers["content-type"]).toMatch(/^application\/json/);
    expect(response.body).toMatchObject({ status: "ok", details: { database: { status: "up" } } });
  });

  it("GET /health/ready answers 503 while a shipped migration is not applied", async () => {
    const [latest] = (
      await e2e.database.pool.query<{ id: string }>(
        "SELECT id FROM _prisma_migrations ORDER BY migration_name DESC LIMIT 1",
      )
    ).rows;
    await e2e.database.pool.query("UPDATE _prisma_migrations SET rolled_back_at = now() WHERE id = $1", [latest?.id]);
    try {
      const response = await notMigrated({ pending: 1, failed: 0 });
      expect(response.text).not.toContain("2026");
      expect((await request(e2e.server).get("/health/live")).status).toBe(200);
    } finally {
      await e2e.database.pool.query("UPDATE _prisma_migrations SET rolled_back_at = NULL WHERE id = $1", [latest?.id]);
    }
    expect((await request(e2e.server).get("/health/ready")).status).toBe(200);
  });

  it("GET /health/ready answers 503 after a migration failed, without naming it", async () => {
    const name = "29990101000000_failed_here";
    await e2e.database.pool.query(
      `INSERT INTO _prisma_migrations (id, checksum, migration_name, logs, started_at, applied_steps_count)
       VALUES (gen_random_uuid()::text, 'checksum', $1, 'ERROR: relation already exists', now(), 0)`,
      [name],
    );
    try {
      const response = await notMigrated({ pending: 0, failed: 1 });
      expect(response.text).not.toContain("failed_here");
    } finally {
      await e2e.database.pool.query("DELETE FROM _prisma_migrations WHERE migration_name = $1", [name]);
    }
  });

  it("GET /health/ready answers 503 during a database outage while live stays 200, and recovers", async () => {
    await e2e.proxy.cut();
    const response = await request(e2e.server).get("/health/ready").timeout(20_000);
    expectProblem(response, 503, "unavailable");
    expect(response.headers["retry-after"]).toBe(String(e2e.config.retryAfterSeconds));
    expect(response.body.checks.database).toEqual({ status: "down", message: "the database is unreachable" });
    expect((await request(e2e.server).get("/health/live")).status).toBe(200);

    await e2e.proxy.start();
    let status = 0;
    for (let attempt = 0; attempt < 20 && status !== 200; attempt++) {
      status = (await request(e2e.server).get("/health/ready")).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(status).toBe(200);
  }, 60_000);
});
