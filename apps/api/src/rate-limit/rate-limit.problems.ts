import { ProblemException, problemTypes, retryAfter, retryAfterHeader } from "../common/problems";

/** The rate limiter: its problem types. */
export const RATE_LIMIT_PROBLEMS = problemTypes({
  RateLimited: {
    type: "rate-limited",
    status: 429,
    title: "Too many requests",
    docs: "The caller exceeded its rate limit, or its access token already holds the most changes requests with `wait` allowed at once (CHANGES_WAIT_MAX_PER_TOKEN); retry after Retry-After seconds.",
    headers: retryAfterHeader,
    example: { detail: "More than 100 requests in 60 s; try again in 12 s" },
  },
});

/** Too many requests for one token (or client address) in the current window. */
export class RateLimitedException extends ProblemException {
  constructor(retryAfterSeconds: number, limit: number, windowSeconds: number) {
    super(
      RATE_LIMIT_PROBLEMS.RateLimited,
      `More than ${limit} requests in ${windowSeconds} s; try again in ${retryAfterSeconds} s`,
      retryAfter(retryAfterSeconds),
    );
  }
}

/** Too many failed authentications from one client address in the current window. */
export class FailedAuthenticationsLimitedException extends ProblemException {
  constructor(retryAfterSeconds: number, limit: number, windowSeconds: number) {
    super(
      RATE_LIMIT_PROBLEMS.RateLimited,
      `More than ${limit} failed authentications from this address in ${windowSeconds} s; try again in ${retryAfterSeconds} s`,
      retryAfter(retryAfterSeconds),
    );
  }
}
