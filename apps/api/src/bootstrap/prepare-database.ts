import {
  createDatabase,
  type Database,
  type EmbeddedPostgres,
  migrateDeploy,
  migrationState,
  startEmbeddedPostgres,
} from "@community/db";
import { demoFixture, loadFixture } from "@community/fixtures";
import type { Logger } from "@nestjs/common";
import type { AppConfig } from "../config/config";

export class StartupError extends Error {
  override name = "StartupError";
}

export interface PreparedDatabase {
  database: Database;
  /** Set in embedded mode: the PGlite server to stop after the database pool. */
  embedded?: EmbeddedPostgres;
  /** True when this start loaded the demo data. */
  seededDemo: boolean;
  close(): Promise<void>;
}

function open(config: AppConfig, url: string, poolMax: number, logger: Logger): Database {
  return createDatabase({
    url,
    poolMax,
    connectTimeoutMs: config.dbConnectTimeoutMs,
    statementTimeoutMs: config.dbStatementTimeoutMs,
    lockTimeoutMs: config.dbLockTimeoutMs,
    breakerThreshold: config.dbBreakerThreshold,
    breakerProbeMs: config.dbBreakerProbeMs,
    onIdleError: (error) => logger.warn(`idle database connection failed: ${error.message}`),
  });
}

/**
 * With DATABASE_URL: connects and refuses to start while migrations are pending (they are
 * applied by `pnpm db:migrate`, a deliberate step in production). Without it: the embedded
 * PostgreSQL, migrated on start and filled with the demo data while it is empty.
 */
export async function prepareDatabase(config: AppConfig, logger: Logger): Promise<PreparedDatabase> {
  if (config.databaseUrl !== undefined) {
    const database = open(config, config.databaseUrl, config.dbPoolMax, logger);
    try {
      const state = await migrationState(database.pool).catch((error: Error) => {
        throw new StartupError(`cannot reach the database named by DATABASE_URL: ${error.message}`);
      });
      if (state.failed.length > 0) {
        throw new StartupError(
          `migration(s) ${state.failed.join(", ")} failed earlier; resolve them (see docs/database.md), then run \`pnpm db:migrate\``,
        );
      }
      if (state.pending.length > 0) {
        throw new StartupError(
          `the database has ${state.pending.length} pending migration(s) (${state.pending.join(", ")}); run \`pnpm db:migrate\` with the same DATABASE_URL, then start again`,
        );
      }
    } catch (error) {
      await database.close();
      throw error;
    }
    return { database, seededDemo: false, close: () => database.close() };
  }

  logger.log(`no DATABASE_URL: using the embedded PostgreSQL in ${config.embeddedDataDir}`);
  const embedded = await startEmbeddedPostgres({ dataDir: config.embeddedDataDir });
  // PGlite is a single session: one pooled connection keeps every transaction isolated.
  const database = open(config, embedded.url, 1, logger);
  const close = async () => {
    await database.close();
    await embedded.stop();
  };
  try {
    const state = await migrationState(database.pool);
    if (state.pending.length > 0) {
      logger.log(`applying ${state.pending.length} migration(s) to the embedded database`);
      await migrateDeploy(embedded.url, { quiet: true });
    }
    let seededDemo = false;
    if (config.embeddedSeedDemo && (await database.prisma.team.count()) === 0) {
      const counts = await loadFixture(database.prisma, demoFixture());
      logger.log(`loaded the demo data into the empty embedded database: ${JSON.stringify(counts)}`);
      seededDemo = true;
    }
    return { database, embedded, seededDemo, close };
  } catch (error) {
    await close();
    throw error;
  }
}
