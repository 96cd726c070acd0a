import { ThrottlerStorageRedisService } from "@nest-lab/throttler-storage-redis";
import { Module, type OnModuleInit } from "@nestjs/common";
import { APP_GUARD } from "@nestjs/core";
import { ThrottlerModule } from "@nestjs/throttler";
import { APP_CONFIG, type AppConfig } from "../config/config";
import { MetricsModule } from "../metrics/metrics.module";
import { MetricsService } from "../metrics/metrics.service";
import { scrapedMetrics } from "../metrics/scraped-metrics";
import { RedisModule } from "../redis/redis.module";
import { RedisConnection } from "../redis/redis.provider";
import { FailedAuthBudget } from "./failed-auth-budget";
import { FixedWindowMemoryStorage } from "./fixed-window-memory.storage";
import { KnownValidTokens } from "./known-valid-tokens";
import { RateLimitGuard } from "./rate-limit.guard";
import { SpentBudgetRefusal } from "./spent-budget-refusal";

/** Counters in Redis when REDIS_URL is set (one budget across replicas), else in memory. */
@Module({
  imports: [
    MetricsModule,
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
    SpentBudgetRefusal,
    { provide: APP_GUARD, useClass: RateLimitGuard },
  ],
  // The calendar feeds spend the same failed-authentication budget for a secret that opens nothing.
  exports: [SpentBudgetRefusal, FailedAuthBudget],
})
export class RateLimitModule implements OnModuleInit {
  constructor(
    private readonly spentBudget: SpentBudgetRefusal,
    private readonly metrics: MetricsService,
  ) {}

  onModuleInit(): void {
    // Those requests write no request line and no HTTP metrics: this counts them.
    scrapedMetrics(this.metrics.registry).counter(
      "rate_limit_failed_auth_refused_total",
      "Requests refused with 429 in the request pass: an unknown token from an address whose failed-authentication budget is spent",
      () => this.spentBudget.refused,
    );
  }
}
