// First: when tracing is configured, its instrumentations must hook http, express and pg before
// anything requires them.
import "./tracing/register";
import "reflect-metadata";
import type { AddressInfo } from "node:net";
import { DEMO_OAUTH_CLIENTS, DEMO_PASSWORDS, DEMO_TOKENS } from "@community/fixtures";
import { Logger } from "@nestjs/common";
import { createApp } from "./app.factory";
import { prepareDatabase, StartupError } from "./bootstrap/prepare-database";
import { ConfigError, loadConfig } from "./config/config";
import { configSummary } from "./config/config-summary";
import { DrainState } from "./health/drain-state";
import { drainTraffic, shutDownGracefully } from "./lifecycle/graceful-shutdown";
import { useStructuredLogs } from "./logging/bootstrap-logger";
import { tracing } from "./tracing/register";

async function bootstrap(): Promise<void> {
  const config = loadConfig(process.env);
  const flushLogs = useStructuredLogs(config);
  const logger = new Logger("Bootstrap");
  logger.log(`configured: ${configSummary(config)}`);
  const prepared = await prepareDatabase(config, logger);
  const app = await createApp(config, prepared.database);
  await app.listen(config.port, config.host);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.log(`${signal} received: finishing requests in flight, then closing`);
    // Interactive stops (Ctrl-C) skip the drain's delay: no load balancer is waiting for readiness.
    // Held requests are answered at once either way.
    if (signal === "SIGTERM") await drainTraffic(app.get(DrainState), config.shutdownDrainDelayMs, logger);
    else app.get(DrainState).start();
    const code = await shutDownGracefully(
      { app, database: prepared.database, closeDatabase: () => prepared.close() },
      config.shutdownTimeoutMs,
      logger,
    );
    await tracing?.shutdown().catch(() => undefined);
    logger.log("closed");
    process.exit(code);
  };
  process.once("SIGTERM", () => void stop("SIGTERM"));
  process.once("SIGINT", () => void stop("SIGINT"));
  prepared.waiting?.catch((error: Error) => {
    process.stderr.write(`Cannot serve: ${error.message}\n`);
    process.exit(1);
  });

  const base = `http://localhost:${config.port}`;
  const address = app.getHttpServer().address() as AddressInfo;
  logger.log(`listening on ${address.address}:${address.port}`);
  if (prepared.embedded !== undefined) {
    // After the "listening" line, on stderr: stdout stays JSON lines for whatever reads them.
    await flushLogs();
    process.stderr.write(
      `\nReady. Try it with a demo token (more in README.md, "Calling the API"):\n\n` +
        `  curl -H 'Authorization: Bearer ${DEMO_TOKENS.runners.token}' ${base}/v1/me/community/team/events\n\n` +
        (config.oauth.builtIn === undefined
          ? ""
          : `Or sign in as a demo user and get an access token (README.md, "Getting a token"):\n\n` +
            `  issuer ${config.oauth.builtIn.issuer}, client ${DEMO_OAUTH_CLIENTS.public.clientId}, user user_sam / password ${DEMO_PASSWORDS.user_sam}\n\n`) +
        // Loopback only, whatever HOST says; EMBEDDED_DB_PORT pins the port (docs/sync.md, "Long poll").
        `Change the data while it runs (docs/sync.md, "Long poll"):\n\n` +
        `  DATABASE_URL='${prepared.embedded.url}' pnpm seed --file <fixture.json>\n\n`,
    );
  }
}

bootstrap().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof StartupError) {
    process.stderr.write(`Cannot start: ${error.message}\n`);
  } else {
    process.stderr.write(`Cannot start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  }
  process.exit(1);
});
