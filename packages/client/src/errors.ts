import type { Problem } from "@community/domain";

/** What a failed call was about, so that callers can switch on it without instanceof chains. */
export type ApiErrorKind =
  | "invalid-query"
  | "unauthorized"
  | "forbidden"
  | "not-found"
  | "rate-limited"
  | "unavailable"
  | "server"
  | "other";

const KINDS: Record<number, ApiErrorKind> = {
  400: "invalid-query",
  401: "unauthorized",
  403: "forbidden",
  404: "not-found",
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
    this.name = "UnexpectedResponseError";
  }
}

export function apiError(status: number, problem: Problem | undefined, url: string, retryAfter?: number): ApiError {
  const ErrorClass =
    {
      401: UnauthorizedError,
      403: ForbiddenError,
      404: NotFoundError,
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
