import type { IncomingMessage, ServerResponse } from "node:http";
import type { Params } from "nestjs-pino";
import { type DestinationStream, destination as pinoDestination, stdTimeFunctions } from "pino";
import type { Options } from "pino-http";
import type { AppConfig } from "../config/config";

/** The buffer of the stdout destination: at most this many bytes, or this many milliseconds, held back. */
export const LOG_BUFFER_BYTES = 4096;
export const LOG_FLUSH_MS = 100;

function stdoutOptions() {
  return { dest: 1, sync: false, minLength: LOG_BUFFER_BYTES, periodicFlush: LOG_FLUSH_MS };
}

/**
 * nestjs-pino settings: JSON lines on stdout, or pino-pretty when a person watches a terminal.
 * nestjs-pino's own middleware (pino-http's child logger per request) is not mounted
 * (`forRoutes: []`): the request pass (request-pass.middleware.ts) writes the request line with
 * the root logger (logging/request-log.ts) and opens the request's logging context itself.
 */
export function loggerParams(config: AppConfig, destination?: DestinationStream): Params {
  const pretty = destination === undefined && process.stdout.isTTY === true;
  const options: Options<IncomingMessage, ServerResponse> = {
    level: config.logLevel,
    timestamp: stdTimeFunctions.isoTime,
    transport: pretty
      ? { target: require.resolve("pino-pretty"), options: { translateTime: "SYS:HH:MM:ss.l", singleLine: true } }
      : undefined,
    // The request and response objects are never logged, even if a line passed them.
    serializers: { req: () => undefined, res: () => undefined },
  };
  // stdout without blocking, buffered: lines go out together once LOG_BUFFER_BYTES are pending or
  // every LOG_FLUSH_MS, whichever comes first (one write(2) for many lines instead of one each).
  // pino flushes what is pending when the process exits; a SIGKILL loses at most that much.
  const stream = destination ?? (pretty ? undefined : pinoDestination(stdoutOptions()));
  return {
    pinoHttp: stream === undefined ? options : [options, stream],
    renameContext: "context",
    forRoutes: [],
  };
}
