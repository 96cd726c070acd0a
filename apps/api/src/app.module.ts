import type { Database } from "@community/db";
import { type DynamicModule, type MiddlewareConsumer, Module, type NestModule } from "@nestjs/common";
import { APP_FILTER, APP_PIPE } from "@nestjs/core";
import { ScheduleModule } from "@nestjs/schedule";
import type { DestinationStream } from "pino";
import { CalendarFeedsModule } from "./calendar-feeds/calendar-feeds.module";
import { NotFoundModule } from "./common/not-found.module";
import { ProblemFilter } from "./common/problem.filter";
import { QueryValidationPipe } from "./common/validation.pipe";
import type { AppConfig } from "./config/config";
import { ConfigModule } from "./config/config.module";
import { DatabaseModule } from "./database/database.module";
import { EventsModule } from "./events/events.module";
import { GuidesModule } from "./guides/guides.module";
import { HealthModule } from "./health/health.module";
import { LoggingModule } from "./logging/logging.module";
import { MetricsModule } from "./metrics/metrics.module";
import { OAuthModule } from "./oauth/oauth.module";
import { DocsModule } from "./openapi/docs.module";
import { RateLimitModule } from "./rate-limit/rate-limit.module";
import { RequestPassMiddleware } from "./request-pass.middleware";
import { SecurityModule } from "./security/security.module";
import { WebhooksModule } from "./webhooks/webhooks.module";

@Module({})
export class AppModule implements NestModule {
  static register(
    config: AppConfig,
    database: Database,
    options: { logDestination?: DestinationStream } = {},
  ): DynamicModule {
    return {
      module: AppModule,
      // The request pass (configure below) runs before every module's middleware: it counts and
      // logs every response, and its security headers come before the sign-in pages replace their CSP.
      imports: [
        ConfigModule.register(config),
        // The sweepers' intervals (common/background-task.ts), cleared before the shutdown hooks.
        ScheduleModule.forRoot(),
        DatabaseModule.register(database),
        LoggingModule.register(config, options.logDestination),
        MetricsModule,
        SecurityModule,
        RateLimitModule,
        HealthModule,
        EventsModule,
        GuidesModule,
        WebhooksModule,
        CalendarFeedsModule,
        DocsModule,
        ...(config.oauth.builtIn === undefined ? [] : [OAuthModule]),
        // Last: its route takes every path that the routes before it left.
        NotFoundModule,
      ],
      providers: [
        { provide: APP_FILTER, useClass: ProblemFilter },
        { provide: APP_PIPE, useClass: QueryValidationPipe },
      ],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(RequestPassMiddleware).forRoutes("{*path}");
  }
}
