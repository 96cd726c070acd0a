import type { Database } from "@community/db";
import { Inject, Module, type OnModuleInit } from "@nestjs/common";
import { DATABASE } from "../database/database.tokens";
import { instrumentDatabase } from "./database-metrics";
import { MetricsController } from "./metrics.controller";
import { MetricsService } from "./metrics.service";
import { MetricsTokenGuard } from "./metrics-token.guard";

@Module({
  controllers: [MetricsController],
  providers: [MetricsService, MetricsTokenGuard],
  exports: [MetricsService],
})
export class MetricsModule implements OnModuleInit {
  constructor(
    private readonly metrics: MetricsService,
    @Inject(DATABASE) private readonly database: Database,
  ) {}

  onModuleInit(): void {
    instrumentDatabase(this.database, this.metrics);
  }
}
