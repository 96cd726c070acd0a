import { ALLOWED_METHODS, ProblemException, problemTypes, retryAfter } from "../common/problems";
import { RATE_LIMIT_PROBLEMS } from "../rate-limit/rate-limit.problems";

/** The list endpoints: its problem types. */
// Entries of one shape in every *.problems.ts, repeated on purpose: data, not logic.
export const TEAM_LIST_PROBLEMS = problemTypes({
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
    docs: "A method the path does not answer: any other than GET and HEAD on a list path or a list's changes path; on a webhooks path, any other than those it documents.",
    headers: {
      Allow: {
        description: "The methods the resource answers (GET, HEAD on the lists).",
        schema: { type: "string", pattern: "^[A-Z]+(, [A-Z]+)*$", examples: [ALLOWED_METHODS, "GET, HEAD, POST"] },
      },
    },
    example: { detail: "POST is not allowed here; use GET or HEAD" },
  },
  SyncExpired: {
    type: "sync-expired",
    status: 410,
    title: "Sync token expired",
    docs: "The `since` token was issued for another team or list, is older than the change log's retention (SYNC_RETENTION_DAYS), predates the caller's move to their team, or predates a reset of the list. Start again: take a new token, walk the list, then ask for the changes since that token.",
    example: { detail: "The sync token is older than the change log's retention; walk the list again" },
  },
});

export class NoCommunityTeamException extends ProblemException {
  constructor() {
    super(TEAM_LIST_PROBLEMS.NoCommunityTeam, "The authenticated user is not a member of a community team");
  }
}

/** A method the path does not answer: 405 with the methods it does (a list's: GET, HEAD). */
export class MethodNotAllowedException extends ProblemException {
  constructor(method: string, allowed: string = ALLOWED_METHODS) {
    super(
      TEAM_LIST_PROBLEMS.MethodNotAllowed,
      `${method} is not allowed here; use ${allowed.replace(/, ([A-Z]+)$/, " or $1")}`,
      {
        Allow: allowed,
      },
    );
  }
}

export class SyncExpiredException extends ProblemException {
  constructor(reason: string) {
    super(TEAM_LIST_PROBLEMS.SyncExpired, `The sync token ${reason}; walk the list again from a new token`);
  }
}

/** One access token already holds the most changes requests with `wait` allowed at once (contract 10.1). */
export class HeldRequestsLimitedException extends ProblemException {
  constructor(retryAfterSeconds: number, max: number) {
    super(
      RATE_LIMIT_PROBLEMS.RateLimited,
      `This access token already holds ${max} changes request(s) with wait, the most held at once; try again in ${retryAfterSeconds} s`,
      retryAfter(retryAfterSeconds),
    );
  }
}
