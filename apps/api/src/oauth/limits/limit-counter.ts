import { Inject, Injectable } from "@nestjs/common";
import { InjectThrottlerStorage, type ThrottlerStorage } from "@nestjs/throttler";
import { RedisConnection } from "../../redis/redis.provider";

/** One counter: `limit` hits per window, then refused for `blockMs`. */
export interface Counter {
  key: string;
  windowMs: number;
  limit: number;
  blockMs: number;
}

/**
 * Counters in the api rate limiter's own storage (ThrottlerStorage: Redis when REDIS_URL is set,
 * so every replica counts together; else process memory), for the authorization server's limits.
 */
@Injectable()
export class LimitCounter {
  constructor(
    @InjectThrottlerStorage() private readonly storage: ThrottlerStorage,
    /** Null without REDIS_URL: the in-memory storage, which does not fail. */
    @Inject(RedisConnection) private readonly redis: RedisConnection | null,
  ) {}

  /**
   * Counts one hit on every counter (each increment is atomic, so parallel requests cannot slip
   * through together); returns the seconds to wait when any of them refuses, else 0.
   */
  async hit(counters: Counter[]): Promise<number> {
    try {
      const records = await Promise.all(
        counters.map(({ key, windowMs, limit, blockMs }) =>
          this.storage.increment(key, windowMs, limit, blockMs, "oauth"),
        ),
      );
      this.redis?.answered();
      const waits = records.filter((record) => record.isBlocked).map((record) => Math.max(1, record.timeToBlockExpire));
      return Math.max(0, ...waits);
    } catch (error) {
      // As the api's limiter (RateLimitGuard): with Redis down or hung, serve rather than refuse
      // everyone; the connection logs the change of state once and counts these requests.
      if (this.redis === null) throw error;
      this.redis.failed(error as Error);
      this.redis.unlimitedRequests += 1;
      return 0;
    }
  }
}
