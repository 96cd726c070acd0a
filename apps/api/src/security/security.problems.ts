import { COMMON_PROBLEMS, ProblemException, type ProblemType, retryAfter } from "../common/problems";

/** What the HTTP layer refuses: its problem types. */
// Entries of one shape in every *.problems.ts (the duplicates tool pairs them): data, not logic.
export const SECURITY_PROBLEMS = {
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
} as const satisfies Record<string, ProblemType>;

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
  constructor(limitBytes: number) {
    super(SECURITY_PROBLEMS.RequestHeaderTooLarge, `The request line and headers are limited to ${limitBytes} bytes`);
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
