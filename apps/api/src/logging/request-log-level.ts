import type { Response } from "express";

const LEVEL = Symbol("requestLogLevel");
type Level = "debug" | "warn";
type WithLevel = { [LEVEL]?: Level };

/**
 * Writes this response's request line at debug: for responses that something else already
 * counts and logs in bulk (requests refused while the database breaker is open).
 */
export function logRequestAtDebug(response: Response): void {
  (response as WithLevel)[LEVEL] = "debug";
}

/** Writes this response's request line at warn: a request refused as malformed, not a failure of ours. */
export function logRequestAtWarn(response: Response): void {
  (response as WithLevel)[LEVEL] = "warn";
}

/** The level set by logRequestAtDebug or logRequestAtWarn, if any. */
export function requestLogLevel(response: object): Level | undefined {
  return (response as WithLevel)[LEVEL];
}
