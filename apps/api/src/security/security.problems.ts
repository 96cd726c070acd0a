import { ProblemException, retryAfter } from "../common/problems";

/** The request did not complete in time (REQUEST_TIMEOUT_MS), almost always a slow database. */
export class RequestTimeoutException extends ProblemException {
  constructor(timeoutMs: number, retryAfterSeconds: number) {
    super(
      "Unavailable",
      `The request did not complete within ${timeoutMs} ms; try again later`,
      retryAfter(retryAfterSeconds),
    );
  }
}

/** A declared body larger than BODY_LIMIT_BYTES. */
export class PayloadTooLargeException extends ProblemException {
  constructor(limitBytes: number) {
    super("PayloadTooLarge", `Request bodies are limited to ${limitBytes} bytes`);
  }
}

/**
 * A request head that Node's HTTP parser refused before any request existed (answered on the
 * socket itself: see security/request-head.ts).
 */
export class RequestHeaderTooLargeException extends ProblemException {
  constructor(limitBytes: number) {
    super("RequestHeaderTooLarge", `The request line and headers are limited to ${limitBytes} bytes`);
  }
}

export class MalformedRequestException extends ProblemException {
  constructor(reason: string) {
    super("BadRequest", `The request is not valid HTTP/1.1: ${reason}`);
  }
}

export class RequestHeadTimeoutException extends ProblemException {
  constructor(timeoutMs: number) {
    super("RequestTimeout", `The request head did not arrive within ${timeoutMs} ms`);
  }
}
