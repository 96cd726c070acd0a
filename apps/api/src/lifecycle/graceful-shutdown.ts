import type { Server } from "node:http";
import type { Database } from "@community/db";
import type { INestApplication, LoggerService } from "@nestjs/common";

export interface ShutdownTarget {
  app: INestApplication;
  database: Database;
  /** Closes the database pool (and the embedded database). */
  closeDatabase(): Promise<void>;
}

/** How long each closing step (app hooks such as Redis, then the pool) may take after the drain. */
const CLOSE_STEP_MS = 5_000;
/** How long the pool must stay unused before the handlers are taken to be done. */
const POOL_QUIET_MS = 200;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The step before shutDownGracefully on SIGTERM: readiness turns 503 at once, while every request
 * is still served for `delayMs`, so that load balancers (which probe readiness, or are told by the
 * platform) stop routing here before the server stops accepting connections.
 */
export async function drainTraffic(drain: { start(): void }, delayMs: number, logger: LoggerService): Promise<void> {
  drain.start();
  if (delayMs === 0) return;
  logger.log(`not ready any more; serving requests for ${delayMs} ms while load balancers take this instance out`);
  await sleep(delayMs);
}

/**
 * Stops accepting connections, lets the requests in flight finish (at most `timeoutMs`, then
 * their connections are cut), waits for handlers whose client already left to release their
 * database connections, and only then runs the app's shutdown hooks and closes the pool (Nest's
 * own app.close() would run the hooks before the server stops). Every step is bounded, so the
 * process always ends. Resolves with the exit code: 0, or 1 when a closing step hung.
 */
export async function shutDownGracefully(
  target: ShutdownTarget,
  timeoutMs: number,
  logger: LoggerService,
): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  const server = target.app.getHttpServer() as Server;
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const cut = setTimeout(() => {
    logger.warn(`requests still running after ${timeoutMs} ms: closing their connections`);
    server.closeAllConnections();
  }, timeoutMs);
  // Keep-alive connections that finish a request after close() must not linger until their timeout.
  const sweep = setInterval(() => server.closeIdleConnections(), 100);
  try {
    await closed;
  } finally {
    clearTimeout(cut);
    clearInterval(sweep);
  }

  // A handler whose client left runs on: wait until no connection has been in use (or awaited)
  // for a while, since a handler goes from its token lookup to its page query on a new one.
  const { pool } = target.database;
  let idleSince = Date.now();
  while (Date.now() - idleSince < POOL_QUIET_MS && Date.now() < deadline) {
    if (pool.totalCount - pool.idleCount > 0 || pool.waitingCount > 0) idleSince = Date.now();
    await sleep(10);
  }

  let code = 0;
  for (const [step, run] of [
    ["application shutdown hooks", () => target.app.close()],
    ["database pool", () => target.closeDatabase()],
  ] as const) {
    let bound: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      run().then(
        () => "done",
        (error: Error) => `failed: ${error.message}`,
      ),
      new Promise<string>((resolve) => {
        bound = setTimeout(() => resolve(`did not finish within ${CLOSE_STEP_MS} ms`), CLOSE_STEP_MS);
      }),
    ]);
    // A step that finished leaves no timer behind (it would hold a test worker, or an embedder, open).
    clearTimeout(bound);
    if (outcome !== "done") {
      logger.error(`closing the ${step} ${outcome}`);
      code = 1;
    }
  }
  return code;
}
