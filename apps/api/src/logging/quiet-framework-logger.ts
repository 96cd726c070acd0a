import type { LoggerService } from "@nestjs/common";

/** Nest's own narration of a start (each module loaded, each route mapped): about 50 lines. */
const START_NARRATION = new Set([
  "NestFactory",
  "InstanceLoader",
  "RoutesResolver",
  "RouterExplorer",
  "NestApplication",
]);

/**
 * Passes every line on, but Nest's start-up narration at debug instead of info: a start says what
 * was configured in one line (main.ts, config-summary.ts), and `LOG_LEVEL=debug` still shows the rest.
 * Nest's loggers name their context as the last argument.
 */
export class QuietFrameworkLogger implements LoggerService {
  constructor(private readonly inner: LoggerService) {}

  log(message: unknown, ...params: unknown[]): void {
    const context = params.at(-1);
    if (typeof context === "string" && START_NARRATION.has(context)) this.debug(message, ...params);
    else this.inner.log(message, ...params);
  }

  error(message: unknown, ...params: unknown[]): void {
    this.inner.error(message, ...params);
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.inner.warn(message, ...params);
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.inner.debug?.(message, ...params);
  }

  verbose(message: unknown, ...params: unknown[]): void {
    this.inner.verbose?.(message, ...params);
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.inner.fatal?.(message, ...params);
  }
}
