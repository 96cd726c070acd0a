import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from "@nestjs/common";
import { SchedulerRegistry } from "@nestjs/schedule";
import { Counter } from "prom-client";
import { BackgroundTask } from "../common/background-task";
import { APP_CONFIG, type AppConfig } from "../config/config";
import { MetricsService } from "../metrics/metrics.service";
import { OAuthPayloadRepository } from "./oauth-payload.repository";

/** Batches per run at most, so one run stays short however far behind it is; the next run goes on. */
const MAX_BATCHES_PER_RUN = 100;

/**
 * Deletes expired `oauth_payloads` rows (interactions, sessions, codes, tokens past their expiry),
 * which oidc-provider never deletes itself: without it every anonymous visit to /oauth/auth left a
 * row forever. Every replica sweeps; SKIP LOCKED keeps them from waiting on or double-counting
 * each other's rows. Counted in `oauth_payloads_swept_total`.
 */
@Injectable()
export class OAuthPayloadSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(OAuthPayloadSweeper.name);
  private readonly swept: Counter;
  private readonly task: BackgroundTask<number>;

  // A constructor of the change-log sweeper's shape: each sweeper owns its task and declares its metrics.
  constructor(
    private readonly payloads: OAuthPayloadRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    metrics: MetricsService,
    scheduler: SchedulerRegistry,
  ) {
    this.task = new BackgroundTask(scheduler, "oauth-payload-sweep");
    this.swept = metrics.counter(
      "oauth_payloads_swept_total",
      "Expired authorization server rows (oauth_payloads) deleted by the periodic sweep",
    );
  }

  onApplicationBootstrap(): void {
    this.task.every(this.config.oauth.sweep.intervalSeconds, () => this.run());
  }

  /** Stops the timer and waits for a sweep under way, so that it never outlives the database. */
  onApplicationShutdown(): Promise<void> {
    return this.task.stop();
  }

  /** One run: batches until none is full (or the run's cap); returns the rows deleted. */
  sweep(): Promise<number> {
    return this.task.run(() => this.run());
  }

  private async run(): Promise<number> {
    const { batchSize } = this.config.oauth.sweep;
    let total = 0;
    try {
      for (let batch = 0; batch < MAX_BATCHES_PER_RUN; batch++) {
        const deleted = await this.payloads.deleteExpired(batchSize);
        total += deleted;
        this.swept.inc(deleted);
        if (deleted < batchSize) break;
      }
    } catch (error) {
      this.logger.warn(`sweeping expired oauth_payloads failed: ${(error as Error).message}`);
    }
    return total;
  }
}
