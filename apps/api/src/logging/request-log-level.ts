import type { Response } from "express";

const LEVEL = Symbol("requestLogLevel");
type WithLevel = { [LEVEL]?: "debug" };

/**
 * Writes this response's request line at debug: for responses that something else already
 * counts and logs in bulk (requests refused while the database breaker is open).
 */
export function logRequestAtDebug(response: Response): void {
  (response as WithLevel)[LEVEL] = "debug";
}

/** The level set by logRequestAtDebug, if any. */
export function requestLogLevel(response: object): "debug" | undefined {
  return (response as WithLevel)[LEVEL];
}
