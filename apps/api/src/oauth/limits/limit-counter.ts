import { Injectable, Logger } from "@nestjs/common";
import { InjectThrottlerStorage, type ThrottlerStorage } from "@nestjs/throttler";

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
  private readonly logger = new Logger(LimitCounter.name);
  /** The storage failed last time: logged once when it starts failing and once when it answers again. */
  private failing = false;

  constructor(@InjectThrottlerStorage() private readonly storage: ThrottlerStorage) {}

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
      if (this.failing) {
        this.failing = false;
        this.logger.log("rate limit storage answers again: sign-in and OAuth endpoint limits apply");
      }
      const waits = records.filter((record) => record.isBlocked).map((record) => Math.max(1, record.timeToBlockExpire));
      return Math.max(0, ...waits);
    } catch (error) {
      // As the api's limiter: with the shared storage down, serve rather than refuse everyone, and
      // say so once, not on every request.
      if (!this.failing) {
        this.failing = true;
        this.logger.warn(
          `rate limit storage failed (${(error as Error).message}): sign-in and OAuth endpoint limits are off until it answers`,
        );
      }
      return 0;
    }
  }
}
