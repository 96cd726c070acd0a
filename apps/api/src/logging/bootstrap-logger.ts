import { Logger } from "@nestjs/common";
import { PinoLogger, Logger as PinoNestLogger } from "nestjs-pino";
import type { AppConfig } from "../config/config";
import { loggerParams } from "./logger-params";

/**
 * Routes Nest's static Logger (used before the app exists, e.g. while the database is prepared)
 * through the same pino instance the app uses afterwards, so that every line is JSON. Returns a
 * flush: its lines are written asynchronously, and text printed after them must wait for it.
 */
export function useStructuredLogs(config: AppConfig): () => Promise<void> {
  const params = loggerParams(config);
  const pino = new PinoLogger(params);
  Logger.overrideLogger(new PinoNestLogger(pino, params));
  return () => new Promise((resolve) => pino.logger.flush(() => resolve()));
}
