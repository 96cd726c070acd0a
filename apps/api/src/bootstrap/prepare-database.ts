import {
  createDatabase,
  type Database,
  DataDirLockedError,
  type EmbeddedPostgres,
  migrateDeploy,
  migrationState,
  startEmbeddedPostgres,
} from "@community/db";
import { listDeclarationMismatches } from "@community/db/lists";
import { demoFixture, demoOAuthClients, demoOrigins, loadFixture } from "@community/fixtures";
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
  /**
   * Set when the database could not be reached at start: resolves once it answers with every
   * migration applied, rejects with a StartupError if it has pending or failed ones.
   */
  waiting?: Promise<void>;
  close(): Promise<void>;
}

/** Waits between attempts to reach a database that was down at start: doubling, capped. */
const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 5_000;

/** The pool's timeouts and circuit breaker, as configured. */
export function databaseLimits(config: AppConfig) {
  return {
    connectTimeoutMs: config.dbConnectTimeoutMs,
    statementTimeoutMs: config.dbStatementTimeoutMs,
    lockTimeoutMs: config.dbLockTimeoutMs,
    readTimeoutMs: config.databaseReadTimeoutMs,
    preparedStatements: config.databasePreparedStatements,
    preparedStatementsPerConnection: config.databasePreparedStatementsMax,
    breakerThreshold: config.dbBreakerThreshold,
    breakerProbeMs: config.dbBreakerProbeMs,
  };
}

function open(config: AppConfig, url: string, poolMax: number, logger: Logger, readUrl?: string): Database {
  return createDatabase({
    url,
    readUrl,
    poolMax,
    ...databaseLimits(config),
    onIdleError: (error) => logger.warn(`idle database connection failed: ${error.message}`),
  });
}

/** Refuses a database whose migrations are not all applied (they are applied by `pnpm db:migrate`). */
function checkMigrations(state: Awaited<ReturnType<typeof migrationState>>): void {
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
}

/**
 * Refuses a database whose declaration of the team lists (`team_lists`, read by the list
 * triggers) disagrees with TEAM_LISTS: its counts, versions and change logs would not match what
 * the lists read.
 */
async function checkListDeclarations(database: Database): Promise<void> {
  const mismatches = await listDeclarationMismatches(database.pool);
  if (mismatches.length > 0) {
    throw new StartupError(
      `the database's team lists disagree with this build's (TEAM_LISTS): ${mismatches.join("; ")}; apply this build's migrations (\`pnpm db:migrate\`) or run the build that matches the database`,
    );
  }
}

/**
 * Polls an unreachable database with backoff until it answers (or `stopped()`), logging the
 * change of state rather than each attempt; then checks its migrations as a start would.
 */
async function waitForDatabase(database: Database, logger: Logger, stopped: () => boolean): Promise<void> {
  const since = Date.now();
  let delay = FIRST_RETRY_MS;
  for (let attempt = 1; !stopped(); attempt++) {
    // Unreferenced: a closed api must not stay alive for the rest of a backoff.
    await new Promise((resolve) => setTimeout(resolve, delay).unref());
    if (stopped()) return;
    let state: Awaited<ReturnType<typeof migrationState>>;
    try {
      state = await migrationState(database.pool);
    } catch {
      delay = Math.min(delay * 2, MAX_RETRY_MS);
      continue;
    }
    logger.log(`the database is reachable after ${attempt} attempt(s) in ${Date.now() - since} ms`);
    checkMigrations(state);
    await checkListDeclarations(database);
    await database.warmUp();
    return;
  }
}

/**
 * With DATABASE_URL: refuses to start while migrations are pending (they are applied by
 * `pnpm db:migrate`, a deliberate step in production). A database that cannot be reached yet is
 * waited for in the background: the api serves, not ready (readiness probes answer 503), and
 * becomes ready when the database answers, rather than exiting into a restart loop. Without it:
 * the embedded PostgreSQL, migrated on start and filled with the demo data while it is empty.
 */
export async function prepareDatabase(config: AppConfig, logger: Logger): Promise<PreparedDatabase> {
  if (config.databaseUrl !== undefined) {
    const database = open(config, config.databaseUrl, config.dbPoolMax, logger, config.databaseReadUrl);
    let closed = false;
    const close = () => {
      closed = true;
      return database.close();
    };
    let state: Awaited<ReturnType<typeof migrationState>>;
    try {
      state = await migrationState(database.pool);
    } catch (error) {
      logger.warn(
        `cannot reach the database named by DATABASE_URL (${(error as Error).message}); not ready until it answers, retrying in the background`,
      );
      return { database, seededDemo: false, waiting: waitForDatabase(database, logger, () => closed), close };
    }
    try {
      checkMigrations(state);
      await checkListDeclarations(database);
      await database.warmUp();
    } catch (error) {
      await database.close();
      throw error;
    }
    return { database, seededDemo: false, close };
  }

  logger.debug(`no DATABASE_URL: using the embedded PostgreSQL in ${config.embeddedDataDir}`);
  const embedded = await startEmbeddedPostgres({
    dataDir: config.embeddedDataDir,
    port: config.embeddedDbPort,
  }).catch((error: unknown) => {
    throw error instanceof DataDirLockedError ? new StartupError(error.message) : error;
  });
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
    await checkListDeclarations(database);
    await database.warmUp();
    let seededDemo = false;
    // The demo clients may send browsers back to this start's PUBLIC_URL (or port), on every start.
    const origins = demoOrigins(config.oauth.publicUrl);
    if (config.embeddedSeedDemo && (await database.prisma.team.count()) === 0) {
      // Upcoming events dated from today, so that a calendar feed of the demo shows them.
      const counts = await loadFixture(database.prisma, demoFixture(origins, { calendarDay: new Date() }));
      logger.log(`loaded the demo data into the empty embedded database: ${JSON.stringify(counts)}`);
      seededDemo = true;
    } else if (config.embeddedSeedDemo) {
      const clients = demoOAuthClients(origins);
      await loadFixture(database.prisma, {
        ...{ accounts: [], teams: [], users: [], access_tokens: [], events: [], guides: [] },
        oauth_clients: clients,
      });
    }
    return { database, embedded, seededDemo, close };
  } catch (error) {
    await close();
    throw error;
  }
}
