import "reflect-metadata";
import type { Database } from "@community/db";
import type { INestApplication } from "@nestjs/common";
import { NestFactory } from "@nestjs/core";
import type { NestExpressApplication } from "@nestjs/platform-express";
import { AppModule } from "./app.module";
import type { AppConfig } from "./config/config";
import { mountAuthorizationServer } from "./oauth/mount-authorization-server";
import { mountApiDocs } from "./openapi/api-docs";

/** Builds the HTTP application; shared by main.ts and the end-to-end tests. */
export async function createApp(
  config: AppConfig,
  database: Database,
  options: { logger?: false } = {},
): Promise<INestApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.register(config, database), {
    bodyParser: false,
    logger: options.logger,
  });
  app.disable("x-powered-by");
  // ETags are computed per representation in sendListPage, not by Express.
  app.set("etag", false);
  mountApiDocs(app);
  if (config.oauth.builtIn !== undefined) await mountAuthorizationServer(app, config, database);
  return app;
}
