import { setTimeout as sleep } from "node:timers/promises";
import { createDatabase, type Database } from "@community/db";
import { SchedulerRegistry } from "@nestjs/schedule";
import request from "supertest";
import { MetricsService } from "../metrics/metrics.service";
import type { Backend } from "../testing/e2e-app";
import { reportFault } from "../testing/fault-report";
import { oauthFixture, PUBLIC_CLIENT } from "../testing/oauth-fixture";
import { OAuthPayloadRepository } from "./oauth-payload.repository";
import { OAuthPayloadSweeper } from "./oauth-payload.sweeper";
import { type OAuthE2eApp, startOAuthApp } from "./testing/oauth-app";
import { authorizationRequest, discoverAs, loadOpenIdClient } from "./testing/oauth-client";

const backends: Backend[] = ["postgres", "embedded"];
const VISITS = 300;
const EXPIRED = 500;

async function insertExpired(database: Database, prefix: string, count: number): Promise<void> {
  await database.prisma.$executeRaw`
    INSERT INTO oauth_payloads (model, id, payload, expires_at)
    SELECT 'Interaction', ${prefix} || i, '{}', now() - interval '1 minute' FROM generate_series(1, ${count}) AS i`;
}

async function countRows(database: Database, where: "expired" | "live"): Promise<number> {
  const [row] =
    where === "expired"
      ? await database.prisma.$queryRaw<{ n: number }[]>`
          SELECT count(*)::int AS n FROM oauth_payloads WHERE expires_at < now()`
      : await database.prisma.$queryRaw<{ n: number }[]>`
          SELECT count(*)::int AS n FROM oauth_payloads WHERE expires_at >= now()`;
  return row?.n ?? 0;
}

/** Anonymous visits to /oauth/auth each store an interaction; expired rows must not stay forever. */
describe.each(backends)("sweep of expired authorization server rows on %s", (backend) => {
  let e2e: OAuthE2eApp;

  beforeAll(async () => {
    e2e = await startOAuthApp(backend, oauthFixture(), {
      OAUTH_SWEEP_INTERVAL_SECONDS: "1",
      OAUTH_SWEEP_BATCH_SIZE: "100",
      OAUTH_RATE_LIMIT_MAX: "0",
    });
  }, 120_000);

  afterAll(async () => {
    await e2e?.close();
  });

  it("deletes expired rows in the background, keeps live ones and counts what it deleted", async () => {
    const oidc = await loadOpenIdClient();
    const spa = await discoverAs(oidc, e2e.issuer, PUBLIC_CLIENT.clientId);
    for (let i = 0; i < VISITS; i++) {
      const { url } = await authorizationRequest(oidc, spa);
      expect((await fetch(url, { redirect: "manual" })).status).toBe(303);
    }
    const live = await countRows(e2e.database, "live");
    expect(live).toBeGreaterThanOrEqual(VISITS);
    await insertExpired(e2e.database, "expired-", EXPIRED);

    let left = await countRows(e2e.database, "expired");
    for (let waited = 0; left > 0 && waited < 8_000; waited += 250) {
      await sleep(250);
      left = await countRows(e2e.database, "expired");
    }
    reportFault(
      `oauth payload sweep (${backend})`,
      `expired rows left of ${EXPIRED} after the sweep: ${left}; live rows kept: ${await countRows(e2e.database, "live")} of ${live}`,
    );
    expect(left).toBe(0);
    expect(await countRows(e2e.database, "live")).toBe(live);
    const metrics = await request(e2e.server).get("/metrics");
    expect(metrics.text).toMatch(new RegExp(`^oauth_payloads_swept_total ${EXPIRED}$`, "m"));
  });

  it("lets two sweepers run at once: every expired row deleted once, none waited for", async () => {
    const other = createDatabase({ url: e2e.url, poolMax: 2, onIdleError: () => undefined });
    try {
      const sweptInBackground = async () =>
        Number(/^oauth_payloads_swept_total (\d+)$/m.exec((await request(e2e.server).get("/metrics")).text)?.[1] ?? 0);
      const before = await sweptInBackground();
      await insertExpired(e2e.database, "race-", 3_000);
      const config = { ...e2e.config, oauth: { ...e2e.config.oauth, sweep: { intervalSeconds: 0, batchSize: 100 } } };
      const sweepers = [e2e.database, other].map(
        (database) =>
          new OAuthPayloadSweeper(
            new OAuthPayloadRepository(database),
            config,
            new MetricsService(),
            new SchedulerRegistry(),
          ),
      );
      const deleted = await Promise.all(sweepers.map((sweeper) => sweeper.sweep()));
      // The app's own sweeper (every second here) may take some batches too: each row still goes once.
      const background = (await sweptInBackground()) - before;
      expect(deleted.reduce((sum, n) => sum + n, background)).toBe(3_000);
      expect(await countRows(e2e.database, "expired")).toBe(0);
    } finally {
      await other.close();
    }
  });
});

describe("sweep next to a transaction holding expired rows", () => {
  let e2e: OAuthE2eApp;

  beforeAll(async () => {
    e2e = await startOAuthApp("postgres", oauthFixture(), { OAUTH_SWEEP_INTERVAL_SECONDS: "0" });
  }, 120_000);

  afterAll(async () => {
    await e2e?.close();
  });

  it("skips the rows another replica holds instead of waiting for them", async () => {
    await insertExpired(e2e.database, "held-", 10);
    await insertExpired(e2e.database, "free-", 200);
    const holder = await e2e.database.pool.connect();
    const sweeper = new OAuthPayloadSweeper(
      new OAuthPayloadRepository(e2e.database),
      e2e.config,
      new MetricsService(),
      new SchedulerRegistry(),
    );
    try {
      await holder.query("BEGIN");
      await holder.query("SELECT id FROM oauth_payloads WHERE id LIKE 'held-%' FOR UPDATE");
      const started = Date.now();
      expect(await sweeper.sweep()).toBe(200);
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await holder.query("ROLLBACK");
      holder.release();
    }
    expect(await sweeper.sweep()).toBe(10);
  });
});
