import type { Database } from "@community/db";
import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from "@nestjs/common";
import { DATABASE } from "./database.tokens";

/**
 * Logs the database circuit breaker's changes of state and, while it is open, one line per
 * interval with the count of refused requests: an outage costs a few lines, not one per request.
 */
@Injectable()
export class DatabaseBreakerLog implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger("Database");
  private readonly onOpen = (error: Error) =>
    this.logger.warn(
      `the database is unreachable (${error.message}): answering 503 at once until a background probe connects`,
    );
  private readonly onClose = (downMs: number) =>
    this.logger.log(`the database answers again after ${Math.round(downMs / 1000)} s: serving requests`);
  private readonly onRefused = (count: number, intervalMs: number) =>
    this.logger.warn(
      `the database is still unreachable: refused ${count} request(s) in ${Math.round(intervalMs / 1000)} s`,
    );

  // The replica's breaker refuses nothing: its reads go to the primary while it is open.
  private readonly onReplicaOpen = (error: Error) =>
    this.logger.warn(
      `the read replica is unreachable (${error.message}): reading lists from the primary until a background probe connects`,
    );
  private readonly onReplicaClose = (downMs: number) =>
    this.logger.log(`the read replica answers again after ${Math.round(downMs / 1000)} s: reading lists from it`);

  constructor(@Inject(DATABASE) private readonly database: Database) {}

  onModuleInit(): void {
    this.database.breaker.on("open", this.onOpen).on("close", this.onClose).on("refused", this.onRefused);
    this.database.replica?.breaker.on("open", this.onReplicaOpen).on("close", this.onReplicaClose);
  }

  onModuleDestroy(): void {
    this.database.breaker.off("open", this.onOpen).off("close", this.onClose).off("refused", this.onRefused);
    this.database.replica?.breaker.off("open", this.onReplicaOpen).off("close", this.onReplicaClose);
  }
}
