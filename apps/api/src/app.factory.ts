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
import { requestIdMiddleware } from "./logging/request-id.middleware";
import { httpMetricsMiddleware } from "./metrics/http-metrics.middleware";
import { MetricsService } from "./metrics/metrics.service";
import { mountAuthorizationServer } from "./oauth/mount-authorization-server";
import { mountApiDocs } from "./openapi/api-docs";
import { hardenHttp } from "./security/http-hardening";

/** Builds the HTTP application; shared by main.ts and the end-to-end tests. */
export async function createApp(
  config: AppConfig,
  database: Database,
  options: {
    logger?: false;
    logDestination?: DestinationStream;
    /** The database was down at start: what resolves when it is up (see prepareDatabase). */
    databaseWaiting?: Promise<void>;
  } = {},
): Promise<INestApplication> {
  const app = await NestFactory.create<NestExpressApplication>(
    AppModule.register(config, database, { logDestination: options.logDestination }),
    { bodyParser: false, logger: options.logger, bufferLogs: options.logger !== false },
  );
  if (options.logger !== false) app.useLogger(app.get(Logger));
  app.use(requestIdMiddleware);
  app.use(httpMetricsMiddleware(app.get(MetricsService)));
  hardenHttp(app, config);
  setHttpServerTimeouts(app.getHttpServer(), config);
  app.disable("x-powered-by");
  // ETags are computed per representation in sendListPage, not by Express.
  app.set("etag", false);
  mountApiDocs(app);
  if (config.oauth.builtIn !== undefined)
    await mountAuthorizationServer(app, config, database, options.databaseWaiting);
  return app;
}
