import type { Database } from "@community/db";
import { type INestApplication, Logger } from "@nestjs/common";
import { type Application, Router } from "express";
import { ServiceUnavailableException } from "../common/problems";
import type { AppConfig } from "../config/config";
import { createAuthorizationServer, OAUTH_PREFIX } from "./authorization-server";
import { registerInteractionRoutes } from "./interaction.routes";
import type { Provider } from "./oidc-provider.types";

/**
 * Serves the built-in authorization server under /oauth of the api's own HTTP server: one
 * process, so `pnpm start` on the embedded database stays a single command and compose exposes
 * it on the api's port. Registered on Express before Nest's routes, which never see /oauth.
 * Its keys live in the database: when that was down at start (`databaseWaiting`), /oauth answers
 * 503 until the database is up and the server has started.
 */
export async function mountAuthorizationServer(
  app: INestApplication,
  config: AppConfig,
  database: Database,
  databaseWaiting?: Promise<void>,
): Promise<void> {
  const express = app.getHttpAdapter().getInstance() as Application;
  const router = Router();
  express.use(router);
  let provider: Provider | undefined;
  router.use(OAUTH_PREFIX, (_request, _response, next) =>
    next(provider === undefined ? new ServiceUnavailableException(config.retryAfterSeconds) : undefined),
  );
  const start = async () => {
    provider = await createAuthorizationServer(config, database);
    registerInteractionRoutes(router, provider, database);
    router.use(OAUTH_PREFIX, provider.callback());
  };
  if (databaseWaiting === undefined) {
    await start();
    return;
  }
  // Rejections of databaseWaiting itself are the caller's (it stops the process).
  databaseWaiting
    .then(start, () => undefined)
    .catch((error: Error) => {
      new Logger("AuthorizationServer").error(`the authorization server did not start: ${error.message}`);
    });
}
