import "reflect-metadata";
import { parse as parseQuery } from "node:querystring";
import type { Database } from "@community/db";
import type { INestApplication } from "@nestjs/common";
import { NestFactory } from "@nestjs/core";
import type { NestExpressApplication } from "@nestjs/platform-express";
import { Logger } from "nestjs-pino";
import type { DestinationStream } from "pino";
import { AppModule } from "./app.module";
import { ProblemFilter } from "./common/problem.filter";
import type { AppConfig } from "./config/config";
import { ConfiguredExpressAdapter } from "./lifecycle/http-server";
import { setHttpServerTimeouts } from "./lifecycle/http-server-timeouts";
import { QuietFrameworkLogger } from "./logging/quiet-framework-logger";
import { answerUnreadableRequestHeads } from "./security/request-head";

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
    new ConfiguredExpressAdapter(config),
    { bodyParser: false, logger: options.logger, bufferLogs: options.logger !== false },
  );
  if (options.logger !== false) app.useLogger(new QuietFrameworkLogger(app.get(Logger)));
  // Settings of the Express application itself, which no middleware can change: req.ip honours
  // TRUST_PROXY, no X-Powered-By, and ETags are computed per representation in sendListPage.
  app.set("trust proxy", config.trustProxy);
  // node:querystring (Express 5's `simple` parser): a parameter is a string or, repeated, an array
  // of strings, never an object; the query DTOs (class-transformer, class-validator) rely on it.
  // Without its 1,000-key cut: a longer query is refused whole before (security/request-fields.ts).
  app.set("query parser", (query: string) => parseQuery(query, "&", "=", { maxKeys: 0 }));
  setHttpServerTimeouts(app.getHttpServer(), config);
  answerUnreadableRequestHeads(app.getHttpServer(), app.get(ProblemFilter), config);
  app.disable("x-powered-by");
  // ETags are computed per representation by the list endpoints (team-lists/), not by Express.
  app.set("etag", false);
  return app;
}
