import { type Database, prismaStatements } from "@community/db";
import { Module, type OnModuleInit } from "@nestjs/common";
import { APP_CONFIG, type AppConfig } from "../config/config";
import { DATABASE } from "../database/database.tokens";
import { HealthModule } from "../health/health.module";
import { MetricsModule } from "../metrics/metrics.module";
import { MetricsService } from "../metrics/metrics.service";
import { ChangeLogSweeper } from "./change-log.sweeper";
import { ChangeWaits } from "./change-waits";
import { ListChangesService } from "./list-changes.service";
import { ListEndpoints } from "./list-endpoints";
import { ListReaders } from "./list-readers";
import { PageCache } from "./page-cache";
import { instrumentPageCache } from "./page-cache-metrics";
import { SignedTokens } from "./signed-tokens";
import { TeamListsService } from "./team-lists.service";

/**
 * The machinery that every team list's module (EventsModule, GuidesModule) shares: the use case
 * of pages and walks (TeamListsService), the changes feed (ListChangesService), what their
 * controllers do once validated (ListEndpoints), each list's page reader and walker
 * (ListReaders), one page cache (one byte budget) for all lists, the sync tokens and cursors, the
 * change log's sweep, and the held requests of the changes feed's long poll (ChangeWaits, which
 * answers them at once when the replica drains: DrainState).
 */
@Module({
  imports: [MetricsModule, HealthModule],
  providers: [
    {
      provide: PageCache,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => new PageCache(config.pageCacheBytes),
    },
    {
      provide: SignedTokens,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => new SignedTokens(config.sync.secret),
    },
    {
      provide: ListReaders,
      inject: [DATABASE],
      useFactory: (database: Database) => new ListReaders(prismaStatements(database.prismaReads)),
    },
    TeamListsService,
    ChangeWaits,
    ListChangesService,
    ListEndpoints,
    ChangeLogSweeper,
  ],
  exports: [TeamListsService, ListChangesService, ListEndpoints],
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
