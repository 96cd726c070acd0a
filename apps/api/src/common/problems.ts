/**
 * Typed exceptions for every problem the API answers with (contract section 7). Code throws
 * these; ProblemFilter alone turns them into RFC 9457 application/problem+json responses.
 */

export interface ParameterError {
  parameter: string;
  message: string;
}

export abstract class ProblemException extends Error {
  abstract readonly status: number;
  /** Last segment of the problem `type` URI. */
  abstract readonly type: string;
  abstract readonly title: string;
  readonly headers: Record<string, string> = {};

  constructor(readonly detail: string) {
    super(detail);
    this.name = new.target.name;
  }

  /** Members beyond the RFC 9457 ones. */
  extensions(): Record<string, unknown> {
    return {};
  }
}

export class InvalidQueryException extends ProblemException {
  readonly status = 400;
  readonly type = "invalid-query";
  readonly title = "Invalid query parameter";

  constructor(readonly errors: ParameterError[]) {
    super(errors.map((e) => `${e.parameter} ${e.message}`).join("; "));
  }

  override extensions() {
    return { errors: this.errors };
  }
}

const REALM = 'Bearer realm="api"';

/** No usable credentials: no Authorization header, another scheme, or an empty bearer token. */
export class MissingCredentialsException extends ProblemException {
  readonly status = 401;
  readonly type = "unauthorized";
  readonly title = "Unauthorized";
  override readonly headers = { "WWW-Authenticate": REALM };

  constructor() {
    super("This endpoint requires an Authorization: Bearer <access token> header");
  }
}

/** A bearer token was sent and is not valid. Never says whether it was unknown, expired or revoked. */
export class InvalidTokenException extends ProblemException {
  readonly status = 401;
  readonly type = "unauthorized";
  readonly title = "Unauthorized";
  override readonly headers = {
    "WWW-Authenticate": `${REALM}, error="invalid_token", error_description="The access token is not valid"`,
  };

  constructor() {
    super("The access token is not valid");
  }
}

/** A valid token that lacks the scope the endpoint needs (RFC 6750 section 3.1). */
export class InsufficientScopeException extends ProblemException {
  readonly status = 403;
  readonly type = "insufficient-scope";
  readonly title = "Insufficient scope";
  override readonly headers: Record<string, string>;

  constructor(readonly scope: string) {
    super(`The access token does not grant the scope ${scope}`);
    this.headers = { "WWW-Authenticate": `${REALM}, error="insufficient_scope", scope="${scope}"` };
  }
}

export class NotFoundProblemException extends ProblemException {
  readonly status = 404;
  readonly type = "not-found";
  readonly title = "Not found";
}

export class NoCommunityTeamException extends ProblemException {
  readonly status = 404;
  readonly type = "no-community-team";
  readonly title = "No community team";

  constructor() {
    super("The authenticated user is not a member of a community team");
  }
}

export class MethodNotAllowedException extends ProblemException {
  readonly status = 405;
  readonly type = "method-not-allowed";
  readonly title = "Method not allowed";
  override readonly headers = { Allow: "GET, HEAD" };

  constructor(method: string) {
    super(`${method} is not allowed here; use GET or HEAD`);
  }
}

export class NotAcceptableException extends ProblemException {
  readonly status = 406;
  readonly type = "not-acceptable";
  readonly title = "Not acceptable";

  constructor() {
    super("This endpoint produces application/json; the Accept header excludes it");
  }
}

export class ServiceUnavailableException extends ProblemException {
  readonly status = 503;
  readonly type = "unavailable";
  readonly title = "Service unavailable";

  constructor(retryAfterSeconds: number, detail = "The database is unreachable; try again later") {
    super(detail);
    this.headers["Retry-After"] = String(retryAfterSeconds);
  }
}

export class InternalProblemException extends ProblemException {
  readonly status = 500;
  readonly type = "internal";
  readonly title = "Internal server error";

  constructor() {
    super("An unexpected error occurred");
  }
}

/** Too many requests for one token (or client address) in the current window. */
export class RateLimitedException extends ProblemException {
  readonly status = 429;
  readonly type = "rate-limited";
  readonly title = "Too many requests";

  constructor(retryAfterSeconds: number, limit: number, windowSeconds: number) {
    super(`More than ${limit} requests in ${windowSeconds} s; try again in ${retryAfterSeconds} s`);
    this.headers["Retry-After"] = String(retryAfterSeconds);
  }
}

/** Readiness failed: the database is unreachable or its migrations are not all applied. */
export class NotReadyException extends ProblemException {
  readonly status = 503;
  readonly type = "unavailable";
  readonly title = "Service unavailable";

  constructor(
    retryAfterSeconds: number,
    private readonly checks: Record<string, unknown>,
  ) {
    super("The service is not ready to serve requests");
    this.headers["Retry-After"] = String(retryAfterSeconds);
  }

  override extensions() {
    return { checks: this.checks };
  }
}

/** The request did not complete in time (REQUEST_TIMEOUT_MS), almost always a slow database. */
export class RequestTimeoutException extends ProblemException {
  readonly status = 503;
  readonly type = "unavailable";
  readonly title = "Service unavailable";

  constructor(timeoutMs: number, retryAfterSeconds: number) {
    super(`The request did not complete within ${timeoutMs} ms; try again later`);
    this.headers["Retry-After"] = String(retryAfterSeconds);
  }
}

/** A declared body larger than BODY_LIMIT_BYTES. */
export class PayloadTooLargeException extends ProblemException {
  readonly status = 413;
  readonly type = "payload-too-large";
  readonly title = "Payload too large";

  constructor(limitBytes: number) {
    super(`Request bodies are limited to ${limitBytes} bytes`);
  }
}

/** GET /metrics without the configured METRICS_TOKEN. */
export class MetricsUnauthorizedException extends ProblemException {
  readonly status = 401;
  readonly type = "unauthorized";
  readonly title = "Unauthorized";
  override readonly headers = { "WWW-Authenticate": 'Bearer realm="metrics"' };

  constructor() {
    super("GET /metrics requires Authorization: Bearer <METRICS_TOKEN>");
  }
}
