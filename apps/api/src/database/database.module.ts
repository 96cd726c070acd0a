import { Module } from "@nestjs/common";
import { DatabaseBreakerLog } from "./database-breaker.log";

/** What the app does around the database connection (made before the app, see bootstrap): its outage log. */
@Module({ providers: [DatabaseBreakerLog] })
export class DatabaseModule {}
