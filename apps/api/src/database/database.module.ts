import type { Database } from "@community/db";
import { type DynamicModule, Global, Module } from "@nestjs/common";
import { DATABASE } from "./database.tokens";
import { DatabaseBreakerLog } from "./database-breaker.log";

/**
 * The database handle (made before the app, see bootstrap, so that start-up can wait for it) for
 * every module, and what the app does around its connection: the outage log.
 */
@Global()
@Module({})
export class DatabaseModule {
  static register(database: Database): DynamicModule {
    return {
      module: DatabaseModule,
      providers: [{ provide: DATABASE, useValue: database }, DatabaseBreakerLog],
      exports: [DATABASE],
    };
  }
}
