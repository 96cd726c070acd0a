import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createDatabase, migrationState } from "@community/db";
import { createEmptyTestDatabase, createTestDatabase } from "@community/db/testing";
import { DEMO_TOKENS, demoFixture } from "@community/fixtures";
import { Logger } from "@nestjs/common";
import request from "supertest";
import type { App } from "supertest/types";
import { createApp } from "../app.factory";
import { testConfig, watchContract } from "../testing/e2e-app";
import { prepareDatabase, StartupError } from "./prepare-database";

const logger = new Logger("test");
logger.log = () => undefined;

describe(prepareDatabase.name, () => {
  it("refuses to start on a DATABASE_URL with pending migrations, naming pnpm db:migrate", async () => {
    const empty = await createEmptyTestDatabase("pending");
    try {
      const attempt = prepareDatabase(testConfig({ DATABASE_URL: empty.url }), logger);
      await expect(attempt).rejects.toThrow(StartupError);
      await expect(prepareDatabase(testConfig({ DATABASE_URL: empty.url }), logger)).rejects.toThrow(
        /pending migration.*20261122000000_init.*pnpm db:migrate/,
      );
    } finally {
      await empty.drop();
    }
  });

  it("refuses to start on a database whose team_lists disagree with TEAM_LISTS, naming the list and the fact", async () => {
    const db = await createTestDatabase("declarations");
    try {
      const tampering = createDatabase({ url: db.url, poolMax: 1 });
      await tampering.pool.query("UPDATE team_lists SET sort_key = 'published_at' WHERE list = 'guides'");
      await tampering.close();
      await expect(prepareDatabase(testConfig({ DATABASE_URL: db.url }), logger)).rejects.toThrow(
        /team lists disagree.*guides: team_lists\.sort_key is published_at/,
      );
    } finally {
      await db.drop();
    }
  });

  it("waits in the background for an unreachable DATABASE_URL instead of failing, until closed", async () => {
    const warnings: string[] = [];
    const watching = new Logger("test");
    watching.log = () => undefined;
    watching.warn = (message: string) => void warnings.push(message);
    const prepared = await prepareDatabase(
      testConfig({ DATABASE_URL: "postgresql://postgres@127.0.0.1:1/none" }),
      watching,
    );
    expect(prepared.waiting).toBeDefined();
    const settled = await Promise.race([
      prepared.waiting?.then(() => "settled"),
      new Promise((resolve) => setTimeout(() => resolve("waiting"), 1_000)),
    ]);
    expect(settled).toBe("waiting");
    expect(warnings).toEqual([
      expect.stringMatching(/^cannot reach the database named by DATABASE_URL .*ECONNREFUSED/),
    ]);
    await prepared.close();
    await expect(prepared.waiting).resolves.toBeUndefined();
  });

  it("starts on a migrated DATABASE_URL and loads nothing into it", async () => {
    const db = await createTestDatabase("migrated");
    try {
      const prepared = await prepareDatabase(testConfig({ DATABASE_URL: db.url }), logger);
      expect(prepared.embedded).toBeUndefined();
      expect(prepared.waiting).toBeUndefined();
      expect(prepared.seededDemo).toBe(false);
      expect(await prepared.database.prisma.team.count()).toBe(0);
      await prepared.close();
    } finally {
      await db.drop();
    }
  });

  it("without DATABASE_URL: migrates the embedded database, loads the demo once, and keeps data across restarts", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "community-embedded-"));
    const config = testConfig({ EMBEDDED_DATA_DIR: dataDir });
    try {
      const first = await prepareDatabase(config, logger);
      expect(first.embedded).toBeDefined();
      expect(first.seededDemo).toBe(true);
      expect((await migrationState(first.database.pool)).pending).toEqual([]);
      const demo = demoFixture();
      expect(await first.database.prisma.event.count()).toBe(demo.events.length);

      const app = await createApp(config, first.database, { logger: false });
      await app.init();
      watchContract(app.getHttpServer());
      const response = await request(app.getHttpServer() as App)
        .get("/v1/me/community/team/events?per_page=5")
        .set("Authorization", `Bearer ${DEMO_TOKENS.runners.token}`);
      expect(response.status).toBe(200);
      expect(response.body.guides).toHaveLength(5);
      // The demo's upcoming events are dated from today: a newcomer's first calendar feed is not empty.
      const feed = await request(app.getHttpServer() as App)
        .post("/v1/me/community/team/calendar-feeds")
        .set("Authorization", `Bearer ${DEMO_TOKENS.runners.token}`)
        .send({});
      expect(feed.status).toBe(201);
      const calendar = await request(app.getHttpServer() as App).get(new URL(feed.body.url).pathname);
      expect(calendar.status).toBe(200);
      expect(calendar.text.match(/BEGIN:VEVENT/g)?.length).toBeGreaterThanOrEqual(10);
      await app.close();
      // A marker row proves the second start reuses the data rather than reloading it.
      await first.database.prisma.team.update({ where: { id: demo.teams[0]?.id }, data: { name: "Renamed" } });
      await first.close();

      const second = await prepareDatabase(config, logger);
      expect(second.seededDemo).toBe(false);
      expect((await second.database.prisma.team.findUnique({ where: { id: demo.teams[0]?.id } }))?.name).toBe(
        "Renamed",
      );
      await second.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
