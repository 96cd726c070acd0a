import { COMMON_PROBLEMS, ProblemException, problemTypes, retryAfter } from "../common/problems";

/** What the HTTP layer refuses: its problem types. */
// Entries of one shape in every *.problems.ts (the duplicates tool pairs them): data, not logic.
export const SECURITY_PROBLEMS = problemTypes({
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
    docs: "The request line and headers together exceed HTTP_MAX_HEADER_BYTES (16 KiB: a very long query string or token), or the request carries more than 100 header fields. The connection is closed.",
    example: { detail: "The request line and headers are limited to 16384 bytes and 100 header fields", instance: "*" },
  },
  TooManyQueryParameters: {
    type: "too-many-query-parameters",
    status: 414,
    title: "Too many query parameters",
    docs: "The query string carries more than 1000 parameters (empty ones included). The request is refused whole rather than answered from the parameters that could be read.",
    example: { detail: "A query string carries at most 1000 parameters; this one carries 2002" },
  },
});

/** The request did not complete in time (REQUEST_TIMEOUT_MS), almost always a slow database. */
export class RequestTimeoutException extends ProblemException {
  constructor(timeoutMs: number, retryAfterSeconds: number) {
    super(
      COMMON_PROBLEMS.Unavailable,
      `The request did not complete within ${timeoutMs} ms; try again later`,
      retryAfter(retryAfterSeconds),
    );
  }
}

/** A declared body larger than BODY_LIMIT_BYTES. */
export class PayloadTooLargeException extends ProblemException {
  constructor(limitBytes: number) {
    super(COMMON_PROBLEMS.PayloadTooLarge, `Request bodies are limited to ${limitBytes} bytes`);
  }
}

/**
 * A request head that Node's HTTP parser refused before any request existed (answered on the
 * socket itself: see security/request-head.ts).
 */
export class RequestHeaderTooLargeException extends ProblemException {
  constructor(limitBytes: number, limitFields: number) {
    super(
      SECURITY_PROBLEMS.RequestHeaderTooLarge,
      `The request line and headers are limited to ${limitBytes} bytes and ${limitFields} header fields`,
    );
  }
}

export class MalformedRequestException extends ProblemException {
  constructor(reason: string) {
    super(COMMON_PROBLEMS.BadRequest, `The request is not valid HTTP/1.1: ${reason}`);
  }
}

export class RequestHeadTimeoutException extends ProblemException {
  constructor(timeoutMs: number) {
    super(SECURITY_PROBLEMS.RequestTimeout, `The request head did not arrive within ${timeoutMs} ms`);
  }
}

/** RFC 9112 section 3.2: one Host header, a valid host[:port]. The detail never repeats the value. */
export class InvalidHostException extends ProblemException {
  constructor(reason: "repeated" | "malformed") {
    super(
      COMMON_PROBLEMS.BadRequest,
      reason === "repeated"
        ? "A request carries one Host header (RFC 9112 section 3.2)"
        : "The Host header is not a valid host[:port] (RFC 9112 section 3.2)",
    );
  }
}

/** A field the service reads as one value, sent more than once (security/request-fields.ts). */
export class RepeatedHeaderException extends ProblemException {
  constructor(field: string) {
    super(COMMON_PROBLEMS.BadRequest, `A request carries at most one ${field} header`);
  }
}

/** More query parameters than node:querystring reads (security/request-fields.ts). */
export class TooManyQueryParametersException extends ProblemException {
  constructor(limit: number, count: number) {
    super(
      SECURITY_PROBLEMS.TooManyQueryParameters,
      `A query string carries at most ${limit} parameters; this one carries ${count}`,
    );
  }
}

/** A form body with more fields than its parser reads (body-parser's parameterLimit). */
export class TooManyFormFieldsException extends ProblemException {
  constructor(limit: number) {
    super(COMMON_PROBLEMS.PayloadTooLarge, `A form carries at most ${limit} fields`);
  }
}
