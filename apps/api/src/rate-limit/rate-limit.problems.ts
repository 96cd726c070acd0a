import { ProblemException, retryAfter } from "../common/problems";

/** Too many requests for one token (or client address) in the current window. */
export class RateLimitedException extends ProblemException {
  constructor(retryAfterSeconds: number, limit: number, windowSeconds: number) {
    super(
      "RateLimited",
      `More than ${limit} requests in ${windowSeconds} s; try again in ${retryAfterSeconds} s`,
      retryAfter(retryAfterSeconds),
    );
  }
}
