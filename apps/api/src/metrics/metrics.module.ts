import type { Database } from "@community/db";
import { Inject, Module, type OnModuleDestroy, type OnModuleInit } from "@nestjs/common";
import { DATABASE } from "../database/database.tokens";
import { RedisModule } from "../redis/redis.module";
import { RedisConnection } from "../redis/redis.provider";
import { instrumentDatabase } from "./database-metrics";
import { instrumentLimiter } from "./limiter-metrics";
import { MetricsController } from "./metrics.controller";
import { MetricsService } from "./metrics.service";
import { MetricsTokenGuard } from "./metrics-token.guard";

@Module({
  imports: [RedisModule],
  controllers: [MetricsController],
  providers: [MetricsService, MetricsTokenGuard],
  exports: [MetricsService],
})
export class MetricsModule implements OnModuleInit, OnModuleDestroy {
  private stopTimingQueries?: () => void;

  constructor(
    private readonly metrics: MetricsService,
    @Inject(DATABASE) private readonly database: Database,
    @Inject(RedisConnection) private readonly redis: RedisConnection | null,
  ) {}

  onModuleInit(): void {
    this.stopTimingQueries = instrumentDatabase(this.database, this.metrics);
    instrumentLimiter(this.redis, this.metrics);
  }

  onModuleDestroy(): void {
    this.stopTimingQueries?.();
  }
}
