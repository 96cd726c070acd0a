import type { Database } from "@community/db";
import { sweepChangeLog } from "@community/db/lists";
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from "@nestjs/common";
import { SchedulerRegistry } from "@nestjs/schedule";
import { Counter } from "prom-client";
import { BackgroundTask } from "../common/background-task";
import { APP_CONFIG, type AppConfig } from "../config/config";
import { DATABASE } from "../database/database.tokens";
import { MetricsService } from "../metrics/metrics.service";

/** The advisory lock that lets one replica at a time sweep the change log ("CHGLOG" in ASCII). */
export const CHANGE_LOG_SWEEP_LOCK = 0x4348474c4f47;

/**
 * Removes change-log entries past the retention (SYNC_RETENTION_DAYS) every
 * CHANGE_LOG_SWEEP_INTERVAL_SECONDS, on the primary. Replicas of the api all run the timer; a
 * session advisory lock lets one of them sweep and the others skip that turn. Counted in
 * `list_change_log_swept_total` (entries) and `list_change_log_sweeps_total` (runs, by outcome).
 */
@Injectable()
export class ChangeLogSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ChangeLogSweeper.name);
  private readonly swept: Counter;
  private readonly runs: Counter<"outcome">;
  private readonly task: BackgroundTask<number | undefined>;

  // A constructor of the oauth-payload sweeper's shape: each sweeper owns its task and declares its metrics.
  constructor(
    @Inject(DATABASE) private readonly database: Database,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    metrics: MetricsService,
    scheduler: SchedulerRegistry,
  ) {
    this.task = new BackgroundTask(scheduler, "list-change-log-sweep");
    this.swept = metrics.counter(
      "list_change_log_swept_total",
      "Change-log entries past the retention removed by the periodic sweep",
    );
    this.runs = metrics.counter(
      "list_change_log_sweeps_total",
      "Change-log sweeps, by outcome: swept, skipped (another replica held the lock) or failed",
      ["outcome"] as const,
    );
  }

  onApplicationBootstrap(): void {
    this.task.every(this.config.sync.sweepIntervalSeconds, () => this.run(new Date()));
  }

  onApplicationShutdown(): Promise<void> {
    return this.task.stop();
  }

  /** One run: the entries removed, or undefined when another replica holds the lock (or it failed). */
  sweep(now = new Date()): Promise<number | undefined> {
    return this.task.run(() => this.run(now));
  }

  private async run(now: Date): Promise<number | undefined> {
    try {
      const client = await this.database.pool.connect();
      try {
        const { rows } = await client.query<{ locked: boolean }>("SELECT pg_try_advisory_lock($1) AS locked", [
          CHANGE_LOG_SWEEP_LOCK,
        ]);
        if (rows[0]?.locked !== true) {
          this.runs.inc({ outcome: "skipped" });
          return undefined;
        }
        try {
          const olderThan = new Date(now.getTime() - this.config.sync.retentionSeconds * 1000);
          const removed = await sweepChangeLog(client, olderThan);
          this.swept.inc(removed);
          this.runs.inc({ outcome: "swept" });
          return removed;
        } finally {
          await client.query("SELECT pg_advisory_unlock($1)", [CHANGE_LOG_SWEEP_LOCK]);
        }
      } finally {
        client.release();
      }
    } catch (error) {
      this.runs.inc({ outcome: "failed" });
      this.logger.warn(`sweeping the list change log failed: ${(error as Error).message}`);
      return undefined;
    }
  }
}
