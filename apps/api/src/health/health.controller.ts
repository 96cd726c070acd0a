import { Controller, Get, Inject, ServiceUnavailableException } from "@nestjs/common";
import {
  HealthCheck,
  type HealthCheckResult,
  HealthCheckService,
  type HealthIndicatorFunction,
} from "@nestjs/terminus";
import { SkipThrottle } from "@nestjs/throttler";
import { APP_CONFIG, type AppConfig } from "../config/config";
import { DatabaseHealthIndicator } from "./database.health";
import { DrainState } from "./drain-state";
import { NotReadyException } from "./health.problems";
import { RecentResult } from "./recent-result";
import { RedisHealthIndicator } from "./redis.health";

/** Probes for the platform: no authentication, never rate limited. */
@Controller("health")
@SkipThrottle()
export class HealthController {
  /** Probes are unauthenticated and may come thousands a second: they share one check a second. */
  private readonly checked: RecentResult<HealthCheckResult>;

  constructor(
    private readonly health: HealthCheckService,
    private readonly database: DatabaseHealthIndicator,
    private readonly redis: RedisHealthIndicator,
    private readonly drain: DrainState,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.checked = new RecentResult(config.readinessCacheMs);
  }

  /** Liveness: the process serves HTTP. Deliberately checks nothing else, so an outage does not restart it. */
  @Get("live")
  @HealthCheck()
  live() {
    return this.health.check([]);
  }

  /**
   * Readiness: route traffic here only while the database is reachable and migrated, and the
   * server is not draining. The database check reports a saturated pool as up (state
   * `saturated`), the replica check (with DATABASE_READ_URL) `fallback` and the redis check (with
   * REDIS_URL) `degraded`, without failing: see docs/operations.md.
   */
  @Get("ready")
  @HealthCheck()
  async ready() {
    if (this.drain.draining) {
      throw new NotReadyException(this.config.retryAfterSeconds, {
        shutdown: { status: "down", message: "the server is shutting down" },
      });
    }
    const checks: HealthIndicatorFunction[] = [() => this.database.check("database")];
    if (this.database.hasReplica) checks.push(() => this.database.checkReplica("replica"));
    if (this.redis.configured) checks.push(() => this.redis.check("redis"));
    try {
      return await this.checked.get(() => this.health.check(checks));
    } catch (error) {
      if (error instanceof ServiceUnavailableException) {
        const result = error.getResponse() as { details?: Record<string, unknown> };
        throw new NotReadyException(this.config.retryAfterSeconds, result.details ?? {});
      }
      throw error;
    }
  }
}
