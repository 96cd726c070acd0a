import type { Database } from "@community/db";
import { type DynamicModule, Global, Module } from "@nestjs/common";
import { APP_FILTER, APP_PIPE } from "@nestjs/core";
import type { DestinationStream } from "pino";
import { AuthModule } from "./auth/auth.module";
import { BearerAuthGuard } from "./auth/bearer-auth.guard";
import { ProblemFilter } from "./common/problem.filter";
import { QueryValidationPipe } from "./common/validation.pipe";
import { APP_CONFIG, type AppConfig } from "./config/config";
import { DatabaseModule } from "./database/database.module";
import { DATABASE } from "./database/database.tokens";
import { HealthModule } from "./health/health.module";
import { LoggingModule } from "./logging/logging.module";
import { MetricsModule } from "./metrics/metrics.module";
import { OAuthModule } from "./oauth/oauth.module";
import { DocsModule } from "./openapi/docs.module";
import { RateLimitModule } from "./rate-limit/rate-limit.module";
import { SecurityModule } from "./security/security.module";
import { TeamListsModule } from "./team-lists/team-lists.module";

/** Configuration and the database are made before the app (see bootstrap) and injected here. */
@Global()
@Module({})
class CoreModule {
  static register(config: AppConfig, database: Database): DynamicModule {
    return {
      module: CoreModule,
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: DATABASE, useValue: database },
      ],
      exports: [APP_CONFIG, DATABASE],
    };
  }
}

@Module({})
export class AppModule {
  static register(
    config: AppConfig,
    database: Database,
    options: { logDestination?: DestinationStream } = {},
  ): DynamicModule {
    return {
      module: AppModule,
      // Middleware runs in this order (the request logger, global, before all): metrics count every
      // response, security headers come before the sign-in pages replace their CSP.
      imports: [
        CoreModule.register(config, database),
        LoggingModule.register(config, options.logDestination),
        MetricsModule,
        SecurityModule,
        DatabaseModule,
        RateLimitModule,
        HealthModule,
        TeamListsModule.register({ imports: [AuthModule], authentication: BearerAuthGuard }),
        DocsModule,
        ...(config.oauth.builtIn === undefined ? [] : [OAuthModule]),
      ],
      providers: [
        { provide: APP_FILTER, useClass: ProblemFilter },
        { provide: APP_PIPE, useClass: QueryValidationPipe },
      ],
    };
  }
}
