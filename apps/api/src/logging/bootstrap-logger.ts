import { Logger } from "@nestjs/common";
import { PinoLogger, Logger as PinoNestLogger } from "nestjs-pino";
import type { AppConfig } from "../config/config";
import { loggerParams } from "./logger-params";

/**
 * Routes Nest's static Logger (used before the app exists, e.g. while the database is prepared)
 * through the same pino instance the app uses afterwards, so that every line is JSON.
 */
export function useStructuredLogs(config: AppConfig): void {
  const params = loggerParams(config);
  Logger.overrideLogger(new PinoNestLogger(new PinoLogger(params), params));
}
