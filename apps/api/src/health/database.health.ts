import { type Database, databaseFailure, migrationState } from "@community/db";
import { Inject, Injectable } from "@nestjs/common";
import { HealthIndicatorService } from "@nestjs/terminus";
import { DATABASE } from "../database/database.tokens";

/**
 * Ready means the database answers and every migration this build ships has been applied; a
 * later release's migration in progress is not a failure (state `migrating`). A
 * saturated database (every pooled connection busy, or queries timing out) stays ready, reported
 * as `state: "saturated"`: a slow-query storm hits every replica alike, and taking them all out
 * of the load balancer at once would turn it into a full outage. Only a lost database (the
 * circuit breaker open, connections refused) is "unreachable" and not ready.
 */
@Injectable()
export class DatabaseHealthIndicator {
  constructor(
    @Inject(DATABASE) private readonly database: Database,
    private readonly health: HealthIndicatorService,
  ) {}

  async check(key: string) {
    const indicator = this.health.check(key);
    const { pool, breaker } = this.database;
    if (breaker.state === "open") return indicator.down({ message: "the database is unreachable" });
    const saturated = indicator.up({ state: "saturated", message: "every database connection is busy" });
    // Queueing behind the requests would only time out: what the pool shows is the answer.
    if (pool.waitingCount > 0 && pool.idleCount === 0) return saturated;
    let state: Awaited<ReturnType<typeof migrationState>>;
    try {
      state = await migrationState(pool);
    } catch (error) {
      if (databaseFailure(error) === "saturated") return saturated;
      // The driver's message may name hosts or users: the probe only says what failed.
      return indicator.down({ message: "the database is unreachable" });
    }
    // Counts only: the probe needs no token, and migration names describe the schema.
    if (state.failed.length > 0 || state.pending.length > 0) {
      return indicator.down({
        message: "migrations are not all applied",
        pending: state.pending.length,
        failed: state.failed.length,
      });
    }
    // The next release migrating before its pods roll: this build has what it needs (expand/contract).
    if (state.inProgress.length > 0) return indicator.up({ state: "migrating", message: "a migration is running" });
    return indicator.up();
  }

  /** Whether DATABASE_READ_URL names a replica (without it there is nothing to check). */
  get hasReplica(): boolean {
    return this.database.replica !== undefined;
  }

  /**
   * The read replica never fails readiness: while it is unreachable, list pages are read from the
   * primary (state `fallback`), which serves them as before, only without the replica's relief.
   * Its state comes from its circuit breaker, so the probe adds no query of its own.
   */
  checkReplica(key: string) {
    const indicator = this.health.check(key);
    if (this.database.replica?.breaker.state === "open") {
      return indicator.up({
        state: "fallback",
        message: "the read replica is unreachable: lists are read from the primary",
      });
    }
    return indicator.up({ state: "ok" });
  }
}
