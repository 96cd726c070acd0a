import { type Problem, READ_SCOPE } from "@community/domain";

/**
 * The problem catalogue (contract section 7) and the typed exceptions code throws. Each problem
 * type is described once here, with its status, title, headers and docs: ProblemFilter writes the
 * RFC 9457 application/problem+json bodies from it, and the OpenAPI document's error responses
 * are generated from it (openapi/problem-responses.ts).
 */

export interface ParameterError {
  parameter: string;
  message: string;
}

/** A response header a problem always carries, as the OpenAPI document describes it. */
export interface ProblemHeader {
  description: string;
  schema: Record<string, unknown>;
}

export interface ProblemType {
  /** Last segment of the problem `type` URI. */
  type: string;
  status: number;
  title: string;
  /** When the api answers with it: the description of its OpenAPI response. */
  docs: string;
  headers?: Record<string, ProblemHeader>;
  /** Members beyond the RFC 9457 ones that it always carries (declared by the Problem wire schema). */
  requires?: readonly (keyof Problem)[];
  /** A typical body, for the documentation. */
  example: Pick<Problem, "detail" | "errors"> & { instance?: string };
}

/** The challenge of the api's bearer authentication, and of the metrics endpoint's. */
export const REALM = 'Bearer realm="api"';
export const METRICS_REALM = 'Bearer realm="metrics"';
/** The methods every list path answers. */
export const ALLOWED_METHODS = "GET, HEAD";

const retryAfterHeader: Record<string, ProblemHeader> = {
  "Retry-After": {
    description: "Seconds to wait before trying again.",
    schema: { type: "integer", minimum: 0, examples: [5] },
  },
};

const challengeHeader = (schema: Record<string, unknown>): Record<string, ProblemHeader> => ({
  "WWW-Authenticate": { description: "RFC 6750 challenge.", schema: { type: "string", ...schema } },
});

export const PROBLEM_CATALOGUE = {
  InvalidQuery: {
    type: "invalid-query",
    status: 400,
    title: "Invalid query parameter",
    docs: "page or per_page is not a plain decimal integer within its bounds, or is given more than once; `errors` lists every invalid parameter.",
    requires: ["errors"],
    example: {
      detail: "per_page must be an integer between 1 and 100",
      instance: "/v1/me/community/team/guides?per_page=500",
      errors: [{ parameter: "per_page", message: "must be an integer between 1 and 100" }],
    },
  },
  InvalidForm: {
    type: "invalid-form",
    status: 400,
    title: "Invalid form field",
    docs: "A form of the sign-in pages lacks a field or has one too long; `errors` lists every invalid field.",
    requires: ["errors"],
    example: {
      detail: "username must not be empty",
      instance: "/oauth/interaction/abc/login",
      errors: [{ parameter: "username", message: "must not be empty" }],
    },
  },
  InteractionFailed: {
    type: "interaction-failed",
    status: 400,
    title: "Sign-in cannot continue",
    docs: "The sign-in or consent is unknown, expired, already finished, or not bound to this browser.",
    example: { detail: "interaction session id cookie not found", instance: "/oauth/interaction/abc" },
  },
  BadRequest: {
    type: "bad-request",
    status: 400,
    title: "Bad request",
    docs: "The request could not be read: not valid HTTP/1.1 (the connection is then closed), or refused by the framework.",
    example: { detail: "The request is not valid HTTP/1.1: Invalid header value char" },
  },
  Unauthorized: {
    type: "unauthorized",
    status: 401,
    title: "Unauthorized",
    docs: 'No, malformed, unknown, expired or revoked access token. A token that was sent but is not valid adds error="invalid_token" to the challenge.',
    headers: challengeHeader({ pattern: '^Bearer realm="api"', examples: [`${REALM}, error="invalid_token"`] }),
    example: { detail: "The access token is not valid" },
  },
  MetricsUnauthorized: {
    type: "unauthorized",
    status: 401,
    title: "Unauthorized",
    docs: "METRICS_TOKEN is set and the request does not carry it.",
    headers: challengeHeader({ const: METRICS_REALM }),
    example: { detail: "GET /metrics requires Authorization: Bearer <METRICS_TOKEN>", instance: "/metrics" },
  },
  InsufficientScope: {
    type: "insufficient-scope",
    status: 403,
    title: "Insufficient scope",
    docs: `The access token does not carry the ${READ_SCOPE} scope (error="insufficient_scope" in the challenge).`,
    headers: challengeHeader({ pattern: '^Bearer realm="api"', examples: [`${REALM}, error="insufficient_scope"`] }),
    example: { detail: `The access token does not grant the scope ${READ_SCOPE}` },
  },
  NotFound: {
    type: "not-found",
    status: 404,
    title: "Not found",
    docs: "No resource at this path.",
    example: { detail: "No resource at GET /v1/nothing", instance: "/v1/nothing" },
  },
  NoCommunityTeam: {
    type: "no-community-team",
    status: 404,
    title: "No community team",
    docs: "The authenticated user is not a member of a community team.",
    example: { detail: "The authenticated user is not a member of a community team" },
  },
  MethodNotAllowed: {
    type: "method-not-allowed",
    status: 405,
    title: "Method not allowed",
    docs: "Any method other than GET and HEAD on a list path.",
    headers: {
      Allow: { description: "The methods the resource answers.", schema: { type: "string", const: ALLOWED_METHODS } },
    },
    example: { detail: "POST is not allowed here; use GET or HEAD" },
  },
  NotAcceptable: {
    type: "not-acceptable",
    status: 406,
    title: "Not acceptable",
    docs: "The Accept header excludes application/json.",
    example: { detail: "This endpoint produces application/json; the Accept header excludes it" },
  },
  PayloadTooLarge: {
    type: "payload-too-large",
    status: 413,
    title: "Payload too large",
    docs: "The request declares a body larger than BODY_LIMIT_BYTES (no endpoint takes a body).",
    example: { detail: "Request bodies are limited to 102400 bytes" },
  },
  RequestTimeout: {
    type: "request-timeout",
    status: 408,
    title: "Request timeout",
    docs: "The client did not send a complete request head within HTTP_HEADERS_TIMEOUT_MS; the connection is closed.",
    example: { detail: "The request head did not arrive within 66000 ms", instance: "*" },
  },
  RequestHeaderTooLarge: {
    type: "request-header-too-large",
    status: 431,
    title: "Request header fields too large",
    docs: "The request line and headers together exceed HTTP_MAX_HEADER_BYTES (16 KiB): a very long query string or token. The connection is closed.",
    example: { detail: "The request line and headers are limited to 16384 bytes", instance: "*" },
  },
  RateLimited: {
    type: "rate-limited",
    status: 429,
    title: "Too many requests",
    docs: "The caller exceeded its rate limit; retry after Retry-After seconds.",
    headers: retryAfterHeader,
    example: { detail: "More than 100 requests in 60 s; try again in 12 s" },
  },
  Internal: {
    type: "internal",
    status: 500,
    title: "Internal server error",
    docs: "An unexpected failure; the body never carries a stack, SQL or internal message.",
    example: { detail: "An unexpected error occurred" },
  },
  Unavailable: {
    type: "unavailable",
    status: 503,
    title: "Service unavailable",
    docs: "The database is unreachable, or the request ran longer than REQUEST_TIMEOUT_MS; the service recovers by itself. Retry after Retry-After seconds.",
    headers: retryAfterHeader,
    example: { detail: "The database is unreachable; try again later" },
  },
  NotReady: {
    type: "unavailable",
    status: 503,
    title: "Service unavailable",
    docs: "Not ready: the database is unreachable or a migration is pending or failed (see checks).",
    headers: retryAfterHeader,
    requires: ["checks"],
    example: { detail: "The service is not ready to serve requests", instance: "/health/ready" },
  },
} as const satisfies Record<string, ProblemType>;

export type ProblemName = keyof typeof PROBLEM_CATALOGUE;

/** Code throws these (or a subclass); ProblemFilter alone turns them into responses. */
export class ProblemException extends Error {
  readonly status: number;
  readonly type: string;
  readonly title: string;

  constructor(
    readonly problem: ProblemName,
    readonly detail: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.name = new.target.name;
    ({ status: this.status, type: this.type, title: this.title } = PROBLEM_CATALOGUE[problem]);
  }

  /** Members beyond the RFC 9457 ones. */
  extensions(): Record<string, unknown> {
    return {};
  }
}

/** A problem that lists every invalid input at once (`errors`). */
export abstract class FieldErrorsException extends ProblemException {
  constructor(
    problem: "InvalidQuery" | "InvalidForm",
    readonly errors: ParameterError[],
  ) {
    super(problem, errors.map((e) => `${e.parameter} ${e.message}`).join("; "));
  }

  override extensions() {
    return { errors: this.errors };
  }
}

/** The Retry-After header of a problem the client may retry. */
export const retryAfter = (seconds: number) => ({ "Retry-After": String(seconds) });

export class InvalidQueryException extends FieldErrorsException {
  constructor(errors: ParameterError[]) {
    super("InvalidQuery", errors);
  }
}

export class NotFoundProblemException extends ProblemException {
  constructor(detail: string) {
    super("NotFound", detail);
  }
}

export class NotAcceptableException extends ProblemException {
  constructor() {
    super("NotAcceptable", "This endpoint produces application/json; the Accept header excludes it");
  }
}

export class ServiceUnavailableException extends ProblemException {
  constructor(retryAfterSeconds: number, detail = "The database is unreachable; try again later") {
    super("Unavailable", detail, retryAfter(retryAfterSeconds));
  }
}

export class InternalProblemException extends ProblemException {
  constructor() {
    super("Internal", "An unexpected error occurred");
  }
}
