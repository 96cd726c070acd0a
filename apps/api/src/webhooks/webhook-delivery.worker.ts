import { type Database, standalonePool } from "@community/db";
import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from "@nestjs/common";
import { SchedulerRegistry } from "@nestjs/schedule";
import type { Pool } from "pg";
import { Counter, Histogram } from "prom-client";
import { BackgroundTask } from "../common/background-task";
import { APP_CONFIG, type AppConfig } from "../config/config";
import { DATABASE } from "../database/database.tokens";
import { MetricsService } from "../metrics/metrics.service";
import { loadGraphileWorker, type Runner } from "./graphile-worker";
import { postNotice } from "./outbound/post-notice";
import { retryDelaySeconds } from "./retry-schedule";
import { type AttemptResult, type ClaimedNotice, WebhookDeliveries } from "./webhook-deliveries";
import { openedSecret, signedHeaders } from "./webhook-secrets";
import { webhooksDatabaseUrl } from "./webhooks-availability";

/** The task that sends one notice: graphile-worker runs it with `{ delivery: <webhook-id> }`. */
export const DELIVER_TASK = "webhook_deliver";

/**
 * Sends the notices the database makes due, on graphile-worker, a job queue in PostgreSQL
 * (docs/decisions.md, "Webhooks: graphile-worker"). Every replica may run a worker (unless
 * WEBHOOK_DELIVERY=false); a job is locked by the one that runs it, so two replicas never make
 * the same attempt, and a receiver's notices go through a queue of their own, one at a time.
 *
 * The worker starts only once there is something to send: a subscription made here, or, at a
 * sweep, an active subscription or a pending notice in the database. Until then a replica holds
 * neither graphile-worker (about 24 MB of code and heap), nor its pool and LISTEN connection, nor
 * its polling: a deployment that uses no webhooks pays one cheap statement per sweep.
 *
 * The sweep, every WEBHOOK_SWEEP_INTERVAL_SECONDS (30) on every replica (each step is safe to run twice):
 * - revokes the subscriptions whose user left the team or whose grant or tokens are gone;
 * - removes finished log entries past WEBHOOK_LOG_RETENTION_DAYS, and counts what is still owed;
 * - once the worker runs: gives back the jobs of a worker that died mid-attempt (locked for longer
 *   than WEBHOOK_STALE_LOCK_SECONDS, 60, while an attempt lasts at most WEBHOOK_TIMEOUT_MS, 15 s),
 *   so that another replica, or this one restarted, makes the attempt again (same webhook-id); and
 *   adds the job of every pending notice that has none (made while the queue's schema was
 *   missing, a database restored without it).
 */
@Injectable()
export class WebhookDeliveryWorker implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger("Webhooks");
  private readonly deliveries: WebhookDeliveries;
  private readonly sweepTask: BackgroundTask<void>;
  private pool: Pool | undefined;
  private runner: Runner | undefined;
  private starting: Promise<void> | undefined;
  private stopping = false;
  /** Where the worker connects; undefined: it never runs here (embedded database, or WEBHOOK_DELIVERY=false). */
  private readonly url: string | undefined;
  private readonly attempts: Counter<"outcome">;
  private readonly latency: Histogram;
  private due = 0;

  constructor(
    @Inject(DATABASE) private readonly database: Database,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    metrics: MetricsService,
    scheduler: SchedulerRegistry,
  ) {
    this.deliveries = new WebhookDeliveries(database.pool);
    this.url = config.webhooks.delivery ? webhooksDatabaseUrl(config, database) : undefined;
    this.sweepTask = new BackgroundTask(scheduler, "webhook-sweep");
    this.attempts = metrics.counter(
      "webhook_attempts_total",
      "Attempts to send a webhook notice, by outcome: delivered, retried, failed (410 or the end of the schedule) or skipped (the subscription ended or its user left the team)",
      ["outcome"] as const,
    );
    this.latency = new Histogram({
      name: "webhook_delivery_latency_seconds",
      help: "From a notice being made due (its change's commit) to the receiver's 2xx",
      buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 1800, 7200, 86400],
      registers: [metrics.registry],
    });
    metrics.gauge(
      "webhook_notices_due",
      "Notices pending (waiting to be sent or retried), as the last sweep counted them",
      () => this.due,
    );
  }

  /** Whether this replica's worker runs (it starts once there is something to send). */
  get running(): boolean {
    return this.runner !== undefined;
  }

  onApplicationBootstrap(): void {
    if (this.url === undefined) return;
    this.sweepTask.every(this.config.webhooks.sweepIntervalSeconds, () => this.tick());
    // In the background: the api serves (not ready) while its database is unreachable.
    void this.sweepTask.run(() => this.tick());
  }

  /**
   * Starts this replica's worker, unless it runs or is starting (a subscription was just made, or a
   * sweep found something to send). A start that fails is logged, and tried again at the next sweep.
   */
  ensureStarted(): Promise<void> {
    if (this.url === undefined || this.stopping) return Promise.resolve();
    this.starting ??= this.startRunner(this.url).catch((error: Error) => {
      this.starting = undefined;
      this.logger.warn(`webhook delivery worker cannot start (${error.message}); trying again at the next sweep`);
    });
    return this.starting;
  }

  private async tick(): Promise<void> {
    if (this.runner === undefined && !this.stopping) {
      const needed = await this.somethingToSend().catch(() => false);
      if (needed) await this.ensureStarted();
    }
    await this.sweep();
  }

  private async somethingToSend(): Promise<boolean> {
    const { rows } = await this.database.pool.query<{ needed: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM webhook_subscriptions WHERE status = 'active')
           OR EXISTS (SELECT 1 FROM webhook_deliveries WHERE state = 'pending') AS needed`,
    );
    return rows[0]?.needed === true;
  }

  private async startRunner(url: string): Promise<void> {
    const { run, Logger: WorkerLogger } = await loadGraphileWorker();
    // Its own small pool: graphile-worker keeps one connection for LISTEN (so a direct one, never
    // through a transaction pooler: DATABASE_LISTEN_URL) and runs its jobs on the others.
    // A connection's error (a restart of the server, say) is logged; the pool makes another.
    const pool = standalonePool(
      {
        connectionString: url,
        max: this.config.webhooks.concurrency + 2,
        connectionTimeoutMillis: this.config.dbConnectTimeoutMs,
        application_name: "community-team-webhooks",
      },
      (error) => this.logger.warn(`webhook worker connection: ${error.message}`),
    );
    try {
      this.runner = await run({
        pgPool: pool,
        concurrency: this.config.webhooks.concurrency,
        noHandleSignals: true,
        // Its few statements a second need no names: it then works through a transaction pooler
        // too, should DATABASE_LISTEN_URL be left unset (its LISTEN then hears nothing there, and
        // the 1 s poll finds the jobs).
        noPreparedStatements: true,
        pollInterval: 1_000,
        logger: new WorkerLogger(() => (level, message) => {
          if (level === "error") this.logger.error(message);
          else if (level === "warning") this.logger.warn(message);
          else this.logger.debug(message);
        }),
        taskList: {
          [DELIVER_TASK]: async (payload) => this.deliver((payload as { delivery: string }).delivery),
        },
      });
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw error;
    }
    this.pool = pool;
    this.logger.debug("webhook delivery worker started");
    // The notices made while no worker ran (or before the queue's schema existed) get their jobs.
    void this.sweepTask.run(() => this.sweep());
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    await this.starting;
    await this.sweepTask.stop();
    // Waits for the attempts under way (each at most WEBHOOK_TIMEOUT_MS).
    await this.runner?.stop();
    this.runner = undefined;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.pool?.end();
    this.pool = undefined;
  }

  /** One attempt at a notice (the job's work); a notice already finished or gone is left alone. */
  async deliver(id: string): Promise<void> {
    const claimed = await this.deliveries.claim(id);
    if ("reason" in claimed) {
      if (claimed.reason !== "gone") this.attempts.inc({ outcome: "skipped" });
      return;
    }
    const result = await this.attempt(claimed);
    await this.deliveries.finish(claimed, result);
    const outcome = result.kind === "delivered" ? "delivered" : result.kind === "retry" ? "retried" : "failed";
    this.attempts.inc({ outcome });
    if (result.kind === "delivered") this.latency.observe((Date.now() - claimed.createdAt.getTime()) / 1000);
  }

  private async attempt(notice: ClaimedNotice): Promise<AttemptResult> {
    const { webhooks, oauth } = this.config;
    const key = oauth?.keyEncryptionKey;
    const secrets = [openedSecret(notice.secret, key, notice.subscriptionId)];
    if (notice.previousSecret !== null && (notice.previousSecretExpiresAt?.getTime() ?? 0) > Date.now()) {
      secrets.push(openedSecret(notice.previousSecret, key, notice.subscriptionId));
    }
    const outcome = await postNotice(
      new URL(notice.url),
      { headers: signedHeaders(notice.id, notice.body, secrets, new Date()), body: notice.body },
      { allowedHosts: webhooks.allowedHosts, timeoutMs: webhooks.timeoutMs },
    );
    if (outcome.kind === "answered" && outcome.status >= 200 && outcome.status < 300) {
      return { kind: "delivered", status: outcome.status };
    }
    if (outcome.kind === "answered" && outcome.status === 410) return { kind: "gone" };
    const status = outcome.kind === "answered" ? outcome.status : null;
    const error =
      outcome.kind === "answered"
        ? `the receiver answered ${outcome.status}`
        : outcome.kind === "refused"
          ? `refused: ${outcome.reason}`
          : outcome.reason;
    const retryAfter =
      outcome.kind === "answered" && (outcome.status === 429 || outcome.status === 503)
        ? outcome.retryAfterSeconds
        : null;
    const delaySeconds = retryDelaySeconds(webhooks.retrySchedule, notice.attempt, retryAfter);
    return delaySeconds === undefined
      ? { kind: "exhausted", status, error }
      : { kind: "retry", status, error, delaySeconds };
  }

  /** One sweep (see the class); failures are logged, and the next sweep tries again. */
  async sweep(): Promise<void> {
    try {
      const pool = this.database.pool;
      await this.deliveries.revokeFallen();
      await pool.query(
        `DELETE FROM webhook_deliveries WHERE state <> 'pending' AND completed_at < now() - make_interval(secs => $1)`,
        [this.config.webhooks.logRetentionSeconds],
      );
      const { rows } = await pool.query<{ due: number }>(
        "SELECT count(*)::int AS due FROM webhook_deliveries WHERE state = 'pending'",
      );
      this.due = rows[0]?.due ?? 0;
      if (this.runner === undefined) return;
      await pool.query(
        `SELECT graphile_worker.force_unlock_workers(array_agg(DISTINCT locked_by))
           FROM graphile_worker.jobs
          WHERE task_identifier = $1 AND locked_by IS NOT NULL AND locked_at < now() - make_interval(secs => $2)
         HAVING count(*) > 0`,
        [DELIVER_TASK, this.config.webhooks.staleLockSeconds],
      );
      await pool.query(
        `SELECT webhook_enqueue(d.id, s.receiver, greatest(coalesce(d.next_attempt_at, now()), now()))
           FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
          WHERE d.state = 'pending'
            AND NOT EXISTS (SELECT 1 FROM graphile_worker.jobs j WHERE j.key = 'webhook-delivery:' || d.id)
          LIMIT 1000`,
      );
    } catch (error) {
      this.logger.warn(`webhook sweep failed: ${(error as Error).message}`);
    }
  }
}
