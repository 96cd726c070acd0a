import "reflect-metadata";
import type { Database } from "@community/db";
import type { INestApplication } from "@nestjs/common";
import { NestFactory } from "@nestjs/core";
import type { NestExpressApplication } from "@nestjs/platform-express";
import { Logger } from "nestjs-pino";
import type { DestinationStream } from "pino";
import { AppModule } from "./app.module";
import type { AppConfig } from "./config/config";
import { setHttpServerTimeouts } from "./lifecycle/http-server-timeouts";

/** Builds the HTTP application; shared by main.ts and the end-to-end tests. */
export async function createApp(
  config: AppConfig,
  database: Database,
  options: {
    logger?: false;
    logDestination?: DestinationStream;
  } = {},
): Promise<INestApplication> {
  const app = await NestFactory.create<NestExpressApplication>(
    AppModule.register(config, database, { logDestination: options.logDestination }),
    { bodyParser: false, logger: options.logger, bufferLogs: options.logger !== false },
  );
  if (options.logger !== false) app.useLogger(app.get(Logger));
  // Settings of the Express application itself, which no middleware can change: req.ip honours
  // TRUST_PROXY, no X-Powered-By, and ETags are computed per representation in sendListPage.
  app.set("trust proxy", config.trustProxy);
  setHttpServerTimeouts(app.getHttpServer(), config);
  app.disable("x-powered-by");
  // ETags are computed per representation by the list endpoints (team-lists/), not by Express.
  app.set("etag", false);
  return app;
}
