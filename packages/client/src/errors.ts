import type { Problem } from "./wire.ts";

/** What a failed call was about, so that callers can switch on it without instanceof chains. */
export type ApiErrorKind =
  | "invalid-query"
  | "unauthorized"
  | "forbidden"
  | "not-found"
  | "sync-expired"
  | "rate-limited"
  | "unavailable"
  | "server"
  | "other";

const KINDS: Record<number, ApiErrorKind> = {
  400: "invalid-query",
  401: "unauthorized",
  403: "forbidden",
  404: "not-found",
  410: "sync-expired",
  429: "rate-limited",
  503: "unavailable",
};

/** The api answered with an error status; `problem` is its RFC 9457 body when it sent one. */
export class ApiError extends Error {
  readonly kind: ApiErrorKind;

  constructor(
    readonly status: number,
    readonly problem: Problem | undefined,
    readonly url: string,
    /** Seconds from Retry-After, when the response had one. */
    readonly retryAfterSeconds?: number,
  ) {
    super(problem?.detail ?? `HTTP ${status} from ${url}`);
    this.name = new.target.name;
    this.kind = KINDS[status] ?? (status >= 500 ? "server" : "other");
  }
}

export class UnauthorizedError extends ApiError {}
export class ForbiddenError extends ApiError {}
export class NotFoundError extends ApiError {}
/** 410: a sync token expired, belongs to another team or list, or predates a change of team. */
export class SyncExpiredError extends ApiError {}
export class RateLimitedError extends ApiError {}
export class UnavailableError extends ApiError {}

/** The api could not be reached, or the connection failed before a response arrived. */
export class NetworkError extends Error {
  constructor(
    readonly url: string,
    options: { cause: unknown },
  ) {
    super(`cannot reach ${url}: ${describeCause(options.cause)}`, options);
    this.name = "NetworkError";
  }
}

/** A response that no version of the contract allows (a 200 without JSON, say). */
export class UnexpectedResponseError extends Error {
  constructor(
    readonly status: number,
    readonly url: string,
    message: string,
  ) {
    super(`${message} (HTTP ${status} from ${url})`);
    this.name = new.target.name;
  }
}

/** The api redirected the client: it stays on its origin and follows no redirect. */
export class RedirectError extends UnexpectedResponseError {}

/** A body larger than `maxBodyBytes`: reading stopped there. */
export class ResponseTooLargeError extends UnexpectedResponseError {
  constructor(
    status: number,
    url: string,
    readonly maxBodyBytes: number,
  ) {
    super(status, url, `the body is larger than ${maxBodyBytes} bytes (maxBodyBytes)`);
  }
}

/**
 * A `Link: rel="next"` to another origin (scheme, host or port). The client never sends its token
 * anywhere but the api's own origin (RFC 6750 section 5), and a walk that leaves it is refused.
 */
export class CrossOriginLinkError extends UnexpectedResponseError {
  constructor(
    status: number,
    url: string,
    readonly target: string,
  ) {
    super(status, url, `the next link leads to another origin (${new URL(target).origin})`);
  }
}

/** A walk or a sync that went past `maxPages` or `maxItems`: a server that never ends, or a limit set too low. */
export class WalkLimitError extends Error {
  constructor(
    readonly limit: "maxPages" | "maxItems",
    readonly value: number,
    readonly url: string,
  ) {
    super(`stopped after ${value} ${limit === "maxPages" ? "pages" : "items"} (${limit}) at ${url}`);
    this.name = "WalkLimitError";
  }
}

/** No complete response within `timeoutMs` (headers and the whole body). */
export class RequestTimeoutError extends Error {
  constructor(
    readonly url: string,
    readonly timeoutMs: number,
  ) {
    super(`no complete response from ${url} within ${timeoutMs} ms (timeoutMs)`);
    this.name = "RequestTimeoutError";
  }
}

export function apiError(status: number, problem: Problem | undefined, url: string, retryAfter?: number): ApiError {
  const ErrorClass =
    {
      401: UnauthorizedError,
      403: ForbiddenError,
      404: NotFoundError,
      410: SyncExpiredError,
      429: RateLimitedError,
      503: UnavailableError,
    }[status] ?? ApiError;
  return new ErrorClass(status, problem, url, retryAfter);
}

function describeCause(cause: unknown): string {
  if (cause instanceof Error) {
    // undici's "fetch failed" keeps the reason (ECONNREFUSED, bad port, ...) one level down.
    const inner = cause.cause as { code?: string; message?: string } | undefined;
    const reason = inner?.code ?? inner?.message;
    return reason ? `${cause.message} (${reason})` : cause.message;
  }
  return String(cause);
}

/** Why `verifyWebhookNotice` refused a notice. */
export type WebhookVerificationErrorKind =
  /** A Standard Webhooks header is missing or malformed, or the signed body is not a notice. */
  | "malformed"
  /** `webhook-timestamp` is further from now than the tolerance (a replay, or a clock far off). */
  | "stale-timestamp"
  /** No signature of `webhook-signature` is the one the secret (or any of the secrets) makes. */
  | "bad-signature";

/**
 * A webhook notice that must not be acted on. Answer it with a 4xx (400 or 401), never 410: a
 * 410 disables the subscription (contract 10.2).
 */
export class WebhookVerificationError extends Error {
  constructor(
    readonly kind: WebhookVerificationErrorKind,
    message: string,
  ) {
    super(message);
    this.name = "WebhookVerificationError";
  }
}
