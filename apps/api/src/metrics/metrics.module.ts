import type { Database } from "@community/db";
import { Inject, type MiddlewareConsumer, Module, type NestModule, type OnModuleInit } from "@nestjs/common";
import { DATABASE } from "../database/database.tokens";
import { instrumentDatabase } from "./database-metrics";
import { HttpMetricsMiddleware } from "./http-metrics.middleware";
import { MetricsController } from "./metrics.controller";
import { MetricsService } from "./metrics.service";
import { MetricsTokenGuard } from "./metrics-token.guard";

@Module({
  controllers: [MetricsController],
  providers: [MetricsService, MetricsTokenGuard],
  exports: [MetricsService],
})
export class MetricsModule implements NestModule, OnModuleInit {
  constructor(
    private readonly metrics: MetricsService,
    @Inject(DATABASE) private readonly database: Database,
  ) {}

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(HttpMetricsMiddleware).forRoutes("{*path}");
  }

  onModuleInit(): void {
    instrumentDatabase(this.database, this.metrics);
  }
}
