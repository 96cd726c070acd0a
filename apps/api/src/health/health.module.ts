import { Module } from "@nestjs/common";
import { TerminusModule } from "@nestjs/terminus";
import { RedisModule } from "../redis/redis.module";
import { DatabaseHealthIndicator } from "./database.health";
import { DrainState } from "./drain-state";
import { HealthController } from "./health.controller";
import { RedisHealthIndicator } from "./redis.health";

@Module({
  // Failed checks are answered as a 503 problem; terminus' own error log would only repeat it.
  imports: [TerminusModule.forRoot({ logger: false }), RedisModule],
  controllers: [HealthController],
  providers: [DatabaseHealthIndicator, RedisHealthIndicator, DrainState],
  exports: [DrainState],
})
export class HealthModule {}
