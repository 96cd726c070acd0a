import { Module, type OnModuleInit } from "@nestjs/common";
import { APP_CONFIG, type AppConfig } from "../config/config";
import { MetricsModule } from "../metrics/metrics.module";
import { MetricsService } from "../metrics/metrics.service";
import { PageCache } from "./page-cache";
import { instrumentPageCache } from "./page-cache-metrics";

/** What every team list shares: one page cache (one byte budget) for all lists. */
@Module({
  imports: [MetricsModule],
  providers: [
    {
      provide: PageCache,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => new PageCache(config.pageCacheBytes),
    },
  ],
  exports: [PageCache],
})
export class TeamListsModule implements OnModuleInit {
  constructor(
    private readonly cache: PageCache,
    private readonly metrics: MetricsService,
  ) {}

  onModuleInit(): void {
    instrumentPageCache(this.cache, this.metrics);
  }
}
