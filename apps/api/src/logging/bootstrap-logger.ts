import { Logger } from "@nestjs/common";
import { PinoLogger, Logger as PinoNestLogger } from "nestjs-pino";
import { symbols } from "pino";
import type { AppConfig } from "../config/config";
import { loggerParams } from "./logger-params";
import { QuietFrameworkLogger } from "./quiet-framework-logger";

/**
 * Routes Nest's static Logger (used before the app exists, e.g. while the database is prepared)
 * through the same pino instance the app uses afterwards, so that every line is JSON. Returns a
 * flush: its lines are written asynchronously, and text printed after them must wait for it.
 */
export function useStructuredLogs(config: AppConfig): () => Promise<void> {
  const params = loggerParams(config);
  const pino = new PinoLogger(params);
  Logger.overrideLogger(new QuietFrameworkLogger(new PinoNestLogger(pino, params)));
  // The app's logger derives from the same root, hence the same stream.
  return () => written((pino.logger as unknown as Record<symbol, PendingStream>)[symbols.streamSym] ?? {});
}

interface PendingStream {
  _writing?: boolean;
  minLength?: number;
  once?(event: "drain", listener: () => void): void;
  flush?(cb: () => void): void;
}

/**
 * Resolves once the lines handed to the stream are written. Without a buffer, pino's flush() does
 * not wait for sonic-boom's asynchronous write (JSON lines) to finish, but its "drain" event does;
 * with one, sonic-boom's flush(cb) writes the buffer and waits; the pretty transport's thread
 * stream waits in flush().
 */
function written(stream: PendingStream): Promise<void> {
  return new Promise((resolve) => {
    // A buffered stdout (logger-params.ts) holds lines until its buffer fills: flush waits for them.
    if ((stream.minLength ?? 0) > 0 && stream.flush) stream.flush(() => resolve());
    else if (stream._writing !== undefined) {
      if (stream._writing && stream.once) stream.once("drain", resolve);
      else resolve();
    } else if (stream.flush) stream.flush(() => resolve());
    else resolve();
  });
}
