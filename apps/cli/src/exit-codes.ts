import {
  ApiError,
  ForbiddenError,
  NetworkError,
  NotFoundError,
  RateLimitedError,
  RequestTimeoutError,
  SyncExpiredError,
  UnauthorizedError,
  UnavailableError,
} from "@community/client";
import { escapeControls } from "./sanitize";

/** Exit codes of the CLI (README, "CLI"). */
export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  unauthorized: 3,
  forbidden: 4,
  notFound: 5,
  rateLimited: 6,
  unavailable: 7,
  network: 8,
  syncExpired: 9,
} as const;

/**
 * A one-line explanation of a failed call and the exit code that goes with it. The problem's
 * detail is the server's text: its control characters are shown, never sent to the terminal.
 */
export function describeFailure(error: unknown, hints: { tokenSource: string; baseUrl: string }): [string, number] {
  const [message, code] = explain(error, hints);
  return [escapeControls(message), code];
}

function explain(error: unknown, hints: { tokenSource: string; baseUrl: string }): [string, number] {
  const detail = error instanceof ApiError && error.problem ? `: ${error.problem.detail}` : "";
  if (error instanceof UnauthorizedError) {
    return [`401 Unauthorized${detail}. Check the token (${hints.tokenSource}).`, EXIT.unauthorized];
  }
  if (error instanceof ForbiddenError) {
    return [`403 Forbidden${detail}. The token needs the community:read scope.`, EXIT.forbidden];
  }
  if (error instanceof NotFoundError) {
    return [`404 Not found${detail}. (api at ${hints.baseUrl})`, EXIT.notFound];
  }
  if (error instanceof RateLimitedError) {
    const wait = error.retryAfterSeconds === undefined ? "" : ` Try again in ${error.retryAfterSeconds} s.`;
    return [`429 Too many requests: still rate limited after retrying.${wait}`, EXIT.rateLimited];
  }
  if (error instanceof UnavailableError) {
    const wait = error.retryAfterSeconds === undefined ? "" : ` Try again in ${error.retryAfterSeconds} s.`;
    return [`503 Service unavailable${detail}.${wait}`, EXIT.unavailable];
  }
  if (error instanceof SyncExpiredError) {
    return [`410 Gone${detail}. Start again without --since (a full walk).`, EXIT.syncExpired];
  }
  if (error instanceof ApiError) {
    return [`HTTP ${error.status}${detail}`, EXIT.failure];
  }
  if (error instanceof RequestTimeoutError) {
    return [`${error.message}. Is the api at ${hints.baseUrl} overloaded?`, EXIT.network];
  }
  if (error instanceof NetworkError) {
    return [
      `${error.message}. Is the api running at ${hints.baseUrl}? (--base-url or COMMUNITY_API_URL)`,
      EXIT.network,
    ];
  }
  return [error instanceof Error ? error.message : String(error), EXIT.failure];
}
