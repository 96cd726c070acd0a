import type { Database } from "@community/db";
import type { INestApplication } from "@nestjs/common";
import type { Application } from "express";
import type { AppConfig } from "../config/config";
import { createAuthorizationServer, OAUTH_PREFIX } from "./authorization-server";
import { registerInteractionRoutes } from "./interaction.routes";

/**
 * Serves the built-in authorization server under /oauth of the api's own HTTP server: one
 * process, so `pnpm start` on the embedded database stays a single command and compose exposes
 * it on the api's port. Registered on Express before Nest's routes, which never see /oauth.
 */
export async function mountAuthorizationServer(
  app: INestApplication,
  config: AppConfig,
  database: Database,
): Promise<void> {
  const provider = await createAuthorizationServer(config, database);
  const express = app.getHttpAdapter().getInstance() as Application;
  registerInteractionRoutes(express, provider, database);
  express.use(OAUTH_PREFIX, provider.callback());
}
