import { ThrottlerStorageRedisService } from "@nest-lab/throttler-storage-redis";
import { Module } from "@nestjs/common";
import { APP_GUARD } from "@nestjs/core";
import { ThrottlerModule } from "@nestjs/throttler";
import { APP_CONFIG, type AppConfig } from "../config/config";
import { RedisModule } from "../redis/redis.module";
import { RedisConnection } from "../redis/redis.provider";
import { FailedAuthBudget } from "./failed-auth-budget";
import { FixedWindowMemoryStorage } from "./fixed-window-memory.storage";
import { KnownValidTokens } from "./known-valid-tokens";
import { RateLimitGuard } from "./rate-limit.guard";

/** Counters in Redis when REDIS_URL is set (one budget across replicas), else in memory. */
@Module({
  imports: [
    RedisModule,
    ThrottlerModule.forRootAsync({
      imports: [RedisModule],
      inject: [APP_CONFIG, RedisConnection],
      useFactory: (config: AppConfig, redis: RedisConnection | null) => ({
        throttlers: [{ name: "default", limit: config.rateLimitMax, ttl: config.rateLimitWindowSeconds * 1000 }],
        storage: redis === null ? new FixedWindowMemoryStorage() : new ThrottlerStorageRedisService(redis.client),
      }),
    }),
  ],
  providers: [
    FailedAuthBudget,
    {
      provide: KnownValidTokens,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => new KnownValidTokens(config.authKnownTokenTtlSeconds),
    },
    { provide: APP_GUARD, useClass: RateLimitGuard },
  ],
  // The calendar feeds spend the same budget for a secret that opens nothing.
  exports: [FailedAuthBudget],
})
export class RateLimitModule {}
