import { ProblemException, retryAfter } from "../common/problems";

/** Readiness failed: the database is unreachable or its migrations are not all applied. */
export class NotReadyException extends ProblemException {
  constructor(
    retryAfterSeconds: number,
    private readonly checks: Record<string, unknown>,
  ) {
    super("NotReady", "The service is not ready to serve requests", retryAfter(retryAfterSeconds));
  }

  override extensions() {
    return { checks: this.checks };
  }
}
