import { Inject, Injectable } from "@nestjs/common";
import { HealthIndicatorService } from "@nestjs/terminus";
import { RedisConnection } from "../redis/redis.provider";

/**
 * Says whether the rate limiter's Redis answers, without failing readiness: while it does not,
 * every replica serves requests without limits (the limiter fails open), and taking them all
 * out of the load balancer would turn a limiter outage into a full one. So the check stays `up`
 * and its `state` says `ok` or `degraded`.
 */
@Injectable()
export class RedisHealthIndicator {
  constructor(
    @Inject(RedisConnection) private readonly redis: RedisConnection | null,
    private readonly health: HealthIndicatorService,
  ) {}

  /** Whether REDIS_URL is set (without it the counters live in memory and there is nothing to check). */
  get configured(): boolean {
    return this.redis !== null;
  }

  async check(key: string) {
    const indicator = this.health.check(key);
    if (this.redis === null || (await this.redis.ping())) return indicator.up({ state: "ok" });
    return indicator.up({
      state: "degraded",
      message: "Redis does not answer: requests are served without rate limits",
    });
  }
}
