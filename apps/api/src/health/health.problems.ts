import { ProblemException, problemTypes, retryAfter, retryAfterHeader } from "../common/problems";

/** Readiness: its problem types. */
export const HEALTH_PROBLEMS = problemTypes({
  NotReady: {
    type: "unavailable",
    status: 503,
    title: "Service unavailable",
    docs: "Not ready: the database is unreachable or a migration is pending or failed (see checks).",
    headers: retryAfterHeader,
    requires: ["checks"],
    example: {
      detail: "The service is not ready to serve requests",
      instance: "/health/ready",
      checks: { database: { status: "down", message: "the database is unreachable" } },
    },
  },
});

/** Readiness failed: the database is unreachable or its migrations are not all applied. */
export class NotReadyException extends ProblemException {
  constructor(
    retryAfterSeconds: number,
    private readonly checks: Record<string, unknown>,
  ) {
    super(HEALTH_PROBLEMS.NotReady, "The service is not ready to serve requests", retryAfter(retryAfterSeconds));
  }

  override extensions() {
    return { checks: this.checks };
  }
}
