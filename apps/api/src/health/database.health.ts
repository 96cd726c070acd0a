import { type Database, migrationState } from "@community/db";
import { Inject, Injectable } from "@nestjs/common";
import { HealthIndicatorService } from "@nestjs/terminus";
import { DATABASE } from "../database/database.tokens";

/** Ready means the database answers and every migration this build ships has been applied. */
@Injectable()
export class DatabaseHealthIndicator {
  constructor(
    @Inject(DATABASE) private readonly database: Database,
    private readonly health: HealthIndicatorService,
  ) {}

  async check(key: string) {
    const indicator = this.health.check(key);
    let state: Awaited<ReturnType<typeof migrationState>>;
    try {
      state = await migrationState(this.database.pool);
    } catch {
      // The driver's message may name hosts or users: the probe only says what failed.
      return indicator.down({ message: "the database is unreachable" });
    }
    if (state.failed.length > 0 || state.pending.length > 0) {
      return indicator.down({
        message: "migrations are not all applied",
        pending: state.pending,
        failed: state.failed,
      });
    }
    return indicator.up();
  }
}
