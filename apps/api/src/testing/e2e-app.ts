import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { createDatabase, type Database, migrateDeploy, startEmbeddedPostgres } from "@community/db";
import { createTestDatabase, testAdminUrl } from "@community/db/testing";
import type { FixtureFile } from "@community/domain";
import { loadFixture } from "@community/fixtures";
import { contractFixture } from "@community/fixtures/testing";
import type { INestApplication } from "@nestjs/common";
import type { DestinationStream } from "pino";
import type { App } from "supertest/types";
import { createApp } from "../app.factory";
import { databaseLimits } from "../bootstrap/prepare-database";
import { type AppConfig, loadConfig } from "../config/config";
import { assertContractKept, watchContract } from "./contract-recorder";
import { TcpProxy } from "./tcp-proxy";

export { watchContract } from "./contract-recorder";

export interface E2eApp {
  app: INestApplication;
  server: App;
  database: Database;
  config: AppConfig;
  /** The database URL the app talks to (for tests that write beside it). */
  url: string;
  close(): Promise<void>;
}

export type Backend = "postgres" | "embedded";

/** Listens on a loopback port of the app's own, so that raw sockets and side-by-side requests reach it. */
export async function listenOnLoopback(e2e: E2eApp): Promise<{ port: number; url: string }> {
  await e2e.app.listen(0, "127.0.0.1");
  const { port } = e2e.app.getHttpServer().address() as AddressInfo;
  return { port, url: `http://127.0.0.1:${port}` };
}

/** Config as `pnpm start` builds it, from an environment the test controls. */
export function testConfig(overrides: NodeJS.ProcessEnv = {}): AppConfig {
  // Request logs are silent unless a test asks for them (it passes LOG_LEVEL and a destination).
  // Readiness is checked afresh on each probe unless a test asks otherwise: tests change the
  // database between two probes.
  // Suites send many bad tokens from one loopback address: their failed-auth budget is wide.
  return loadConfig({
    DB_CONNECT_TIMEOUT_MS: "1000",
    RETRY_AFTER_SECONDS: "3",
    LOG_LEVEL: "silent",
    READINESS_CACHE_MS: "0",
    AUTH_FAILURE_LIMIT: "10000",
    ...overrides,
  });
}

async function boot(
  url: string,
  poolMax: number,
  fixture: FixtureFile | undefined,
  config: AppConfig,
  logDestination?: DestinationStream,
  readUrl?: string,
) {
  const database = createDatabase({ url, readUrl, poolMax, ...databaseLimits(config), onIdleError: () => undefined });
  let app: INestApplication | undefined;
  try {
    await database.warmUp();
    if (fixture !== undefined) await loadFixture(database.prisma, fixture);
    app = await createApp(config, database, { logger: false, logDestination });
    await app.init();
  } catch (error) {
    // Nothing of a failed start stays open: its pool's connections would outlive the suite.
    await app?.close().catch(() => undefined);
    await database.close().catch(() => undefined);
    throw error;
  }
  watchContract(app.getHttpServer());
  return { app, database, server: app.getHttpServer() as App };
}

/**
 * The real AppModule over HTTP against a database of the suite's own: a fresh database on the
 * PostgreSQL server (cloned from the migrated template), or a fresh embedded PGlite migrated by
 * the same migration runner (`migrateDeploy`). The fixture goes in through the seed app's loader.
 */
export async function startE2eApp(
  backend: Backend,
  fixture?: FixtureFile,
  options: {
    env?: NodeJS.ProcessEnv;
    rewriteUrl?: (url: string) => string;
    /** The read replica's URL (DATABASE_READ_URL), made from the suite's database URL. */
    readUrl?: (url: string) => string;
    logDestination?: DestinationStream;
  } = {},
): Promise<E2eApp> {
  const config = testConfig(options.env);
  if (backend === "postgres") {
    const testDb = await createTestDatabase("api");
    const url = options.rewriteUrl ? options.rewriteUrl(testDb.url) : testDb.url;
    const booted = await boot(url, 4, fixture, config, options.logDestination, options.readUrl?.(testDb.url)).catch(
      async (error: unknown) => {
        await testDb.drop().catch(() => undefined);
        throw error;
      },
    );
    return started(booted, config, url, () => testDb.drop());
  }
  const dataDir = mkdtempSync(path.join(tmpdir(), "community-pglite-"));
  const embedded = await startEmbeddedPostgres({ dataDir });
  const release = async () => {
    await embedded.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await migrateDeploy(embedded.url, { quiet: true });
    const { app, database, server } = await boot(embedded.url, 1, fixture, config, options.logDestination);
    return started({ app, database, server }, config, embedded.url, release);
  } catch (error) {
    // A start that fails (or is given up by a hook's timeout) must not leave the database's
    // socket server listening: it would keep the jest worker alive after its last suite.
    await release().catch(() => undefined);
    throw error;
  }
}

/**
 * The real AppModule over HTTP against a database the test made itself (a primary, and a read
 * replica as DATABASE_READ_URL), migrated and loaded with the fixture here. Closing it leaves the
 * database to the test.
 */
export async function startE2eAppOn(
  url: string,
  readUrl: string | undefined,
  fixture?: FixtureFile,
  env?: NodeJS.ProcessEnv,
): Promise<E2eApp> {
  const config = testConfig(env);
  await migrateDeploy(url, { quiet: true });
  return started(await boot(url, 4, fixture, config, undefined, readUrl), config, url, async () => {});
}

/** The E2eApp of a booted app: closing it closes the app and its pools, then `release`s the database. */
function started(
  booted: Pick<E2eApp, "app" | "database" | "server">,
  config: AppConfig,
  url: string,
  release: () => Promise<void>,
): E2eApp {
  const { app, database } = booted;
  return {
    ...booted,
    config,
    url,
    async close() {
      try {
        await app.close();
        await database.close();
      } finally {
        await release();
      }
      assertContractKept();
    },
  };
}

export type ProxiedE2eApp = E2eApp & { proxy: TcpProxy };

/**
 * An e2e app (PostgreSQL, contract fixture) whose database connections go through a TcpProxy, so
 * that a test can take the database away (`proxy.cut()`) and bring it back (`proxy.restore()`).
 */
export async function startE2eAppBehindProxy(env?: NodeJS.ProcessEnv): Promise<ProxiedE2eApp> {
  const proxy = await TcpProxy.inFrontOf(testAdminUrl());
  const e2e = await startE2eApp("postgres", contractFixture(), { env, rewriteUrl: (url) => proxy.route(url) });
  return {
    ...e2e,
    proxy,
    async close() {
      await e2e.close();
      await proxy.cut();
    },
  };
}
