import type { Database } from "@community/db";
import { type DynamicModule, Global, Module } from "@nestjs/common";
import { APP_FILTER, APP_PIPE } from "@nestjs/core";
import { ProblemFilter } from "./common/problem.filter";
import { createQueryValidationPipe } from "./common/validation.pipe";
import { APP_CONFIG, type AppConfig } from "./config/config";
import { DATABASE } from "./database/database.tokens";
import { EventsModule } from "./events/events.module";
import { GuidesModule } from "./guides/guides.module";

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
  static register(config: AppConfig, database: Database): DynamicModule {
    return {
      module: AppModule,
      imports: [CoreModule.register(config, database), EventsModule, GuidesModule],
      providers: [
        { provide: APP_FILTER, useClass: ProblemFilter },
        { provide: APP_PIPE, useFactory: createQueryValidationPipe },
      ],
    };
  }
}
