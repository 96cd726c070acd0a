import type { Server } from "node:http";
import type { INestApplication, LoggerService } from "@nestjs/common";

/**
 * Stops accepting connections, lets the requests in flight finish (at most `timeoutMs`, then
 * their connections are cut), and only then runs the app's shutdown hooks (Redis and friends):
 * Nest's own app.close() would run them before the server stops.
 */
export async function drainHttpServer(app: INestApplication, timeoutMs: number, logger: LoggerService): Promise<void> {
  const server = app.getHttpServer() as Server;
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const deadline = setTimeout(() => {
    logger.warn?.(`requests still running after ${timeoutMs} ms: closing their connections`, "Shutdown");
    server.closeAllConnections();
  }, timeoutMs);
  // Keep-alive connections that finish a request after close() must not linger until their timeout.
  const sweep = setInterval(() => server.closeIdleConnections(), 100);
  try {
    await closed;
  } finally {
    clearTimeout(deadline);
    clearInterval(sweep);
  }
  await app.close();
}
