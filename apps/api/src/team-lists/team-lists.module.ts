import { type CanActivate, type DynamicModule, Module, type OnModuleInit, type Type } from "@nestjs/common";
import { APP_CONFIG, type AppConfig } from "../config/config";
import { MetricsModule } from "../metrics/metrics.module";
import { MetricsService } from "../metrics/metrics.service";
import { instrumentPageCache } from "../metrics/page-cache-metrics";
import { ChangeLogSweeper } from "./change-log.sweeper";
import { LIST_AUTHENTICATION, ListAuthenticationGuard } from "./list-authentication.guard";
import { ListChangesService } from "./list-changes.service";
import { PageCache } from "./page-cache";
import { SignedTokens } from "./signed-tokens";
import { TeamListsController } from "./team-lists.controller";
import { TeamListsService } from "./team-lists.service";

/**
 * Every declared team list (TEAM_LISTS of @community/db/lists): one controller, one use case, one
 * page cache (one byte budget) for all lists, the change feed and its sweep. The app names the
 * authentication (a guard exported by one of `imports`), so the lists do not depend on auth/.
 */
@Module({})
export class TeamListsModule implements OnModuleInit {
  static register(options: { imports: DynamicModule["imports"]; authentication: Type<CanActivate> }): DynamicModule {
    return {
      module: TeamListsModule,
      imports: [MetricsModule, ...(options.imports ?? [])],
      controllers: [TeamListsController],
      providers: [
        { provide: LIST_AUTHENTICATION, useExisting: options.authentication },
        ListAuthenticationGuard,
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
        TeamListsService,
        ListChangesService,
        ChangeLogSweeper,
      ],
    };
  }

  constructor(
    private readonly cache: PageCache,
    private readonly metrics: MetricsService,
  ) {}

  onModuleInit(): void {
    instrumentPageCache(this.cache, this.metrics);
  }
}
