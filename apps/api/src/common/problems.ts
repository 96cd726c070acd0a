import { type Problem } from "@community/domain";
import { redactSecretPaths } from "./secret-paths";

/**
 * Problem types (contract section 7) and the typed exceptions code throws. Each problem type is
 * described once, with its status, title, headers and docs: the shared ones here, a feature's own
 * beside it (`*.problems.ts`). ProblemFilter writes the RFC 9457 application/problem+json bodies
 * from the exception; the OpenAPI document's error responses are generated from the types
 * (openapi/problem-catalogue.ts gathers them).
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
  example: Pick<Problem, "detail" | "errors" | "checks"> & { instance?: string };
}

/** The challenge of the api's bearer authentication, and of the metrics endpoint's. */
export const REALM = 'Bearer realm="api"';
export const METRICS_REALM = 'Bearer realm="metrics"';
/** The methods every list path answers. */
export const ALLOWED_METHODS = "GET, HEAD";

export const retryAfterHeader: Record<string, ProblemHeader> = {
  "Retry-After": {
    description: "Seconds to wait before trying again.",
    schema: { type: "integer", minimum: 0, examples: [5] },
  },
};

export const challengeHeader = (schema: Record<string, unknown>): Record<string, ProblemHeader> => ({
  "WWW-Authenticate": { description: "RFC 6750 challenge.", schema: { type: "string", ...schema } },
});

/**
 * A table of problem types, checked as ProblemType and kept literal (`as const`): the features'
 * exceptions name their entries, and the OpenAPI catalogue reads every table.
 */
export function problemTypes<const T extends Record<string, ProblemType>>(types: T): T {
  return types;
}

/** The problem types several features answer with; each feature declares its own beside it. */
// Entries of one shape in every *.problems.ts, repeated on purpose: data, not logic.
export const COMMON_PROBLEMS = problemTypes({
  InvalidQuery: {
    type: "invalid-query",
    status: 400,
    title: "Invalid query parameter",
    docs: "A query parameter is invalid: page or per_page not a plain decimal integer within its bounds, cursor with page, a cursor or since token altered, forged or (cursor) used with another list, team or filters, an unknown status, a malformed date-time, a window whose start is not before its end, or any parameter given more than once; `errors` lists every invalid parameter.",
    requires: ["errors"],
    example: {
      detail: "per_page must be an integer between 1 and 100",
      instance: "/v1/me/community/team/guides?per_page=500",
      errors: [{ parameter: "per_page", message: "must be an integer between 1 and 100" }],
    },
  },
  BadRequest: {
    type: "bad-request",
    status: 400,
    title: "Bad request",
    docs: "The request could not be read: not valid HTTP/1.1 (the connection is then closed), or refused by the framework.",
    example: { detail: "The request is not valid HTTP/1.1: Invalid header value char" },
  },
  NotFound: {
    type: "not-found",
    status: 404,
    title: "Not found",
    docs: "No resource at this path.",
    example: { detail: "No resource at GET /v1/nothing", instance: "/v1/nothing" },
  },
  NotAcceptable: {
    type: "not-acceptable",
    status: 406,
    title: "Not acceptable",
    docs: "The Accept header excludes application/json.",
    example: { detail: "This endpoint produces application/json; the Accept header excludes it" },
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
  PayloadTooLarge: {
    type: "payload-too-large",
    status: 413,
    title: "Payload too large",
    docs: "The request declares a body larger than BODY_LIMIT_BYTES (no endpoint takes a body).",
    example: { detail: "Request bodies are limited to 102400 bytes" },
  },
  InvalidBody: {
    type: "invalid-body",
    status: 400,
    title: "Invalid request body",
    docs: "The body is not a JSON object with valid fields: for a webhook, a valid `url` (https, no credentials, not an address in a refused range unless its host is allowed), a non-empty subset of `lists` and a short `description`; for a calendar feed, an optional `name` of 1 to 100 characters. `errors` lists every invalid field.",
    requires: ["errors"],
    example: {
      detail: "url must use https",
      errors: [{ parameter: "url", message: "must use https" }],
    },
  },
  UnsupportedMediaType: {
    type: "unsupported-media-type",
    status: 415,
    title: "Unsupported media type",
    docs: "The body is not sent as application/json.",
    example: { detail: "The body must be sent as Content-Type: application/json" },
  },
});

/** Code throws these (or a subclass); ProblemFilter alone turns them into responses. */
export class ProblemException extends Error {
  readonly status: number;
  readonly type: string;
  readonly title: string;

  constructor(
    readonly problem: ProblemType,
    readonly detail: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.name = new.target.name;
    ({ status: this.status, type: this.type, title: this.title } = problem);
  }

  /** Members beyond the RFC 9457 ones. */
  extensions(): Record<string, unknown> {
    return {};
  }
}

/** A problem that lists every invalid input at once (`errors`). */
export abstract class FieldErrorsException extends ProblemException {
  constructor(
    problem: ProblemType,
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
    super(COMMON_PROBLEMS.InvalidQuery, errors);
  }
}

export class NotFoundProblemException extends ProblemException {
  constructor(detail: string) {
    super(COMMON_PROBLEMS.NotFound, detail);
  }

  /** No route serves this path. HEAD is named GET, so that HEAD's headers match GET's body. */
  static at(request: { method: string; path: string }): NotFoundProblemException {
    return new NotFoundProblemException(
      `No resource at ${request.method === "HEAD" ? "GET" : request.method} ${redactSecretPaths(request.path)}`,
    );
  }
}

export class NotAcceptableException extends ProblemException {
  constructor() {
    super(COMMON_PROBLEMS.NotAcceptable, "This endpoint produces application/json; the Accept header excludes it");
  }
}

export class ServiceUnavailableException extends ProblemException {
  constructor(retryAfterSeconds: number, detail = "The database is unreachable; try again later") {
    super(COMMON_PROBLEMS.Unavailable, detail, retryAfter(retryAfterSeconds));
  }
}

export class InternalProblemException extends ProblemException {
  constructor() {
    super(COMMON_PROBLEMS.Internal, "An unexpected error occurred");
  }
}

/** A JSON body that fails validation: every bad field at once. */
export class InvalidBodyException extends FieldErrorsException {
  constructor(errors: ParameterError[]) {
    super(COMMON_PROBLEMS.InvalidBody, errors);
  }
}

export class UnsupportedMediaTypeException extends ProblemException {
  constructor() {
    super(COMMON_PROBLEMS.UnsupportedMediaType, "The body must be sent as Content-Type: application/json");
  }
}
