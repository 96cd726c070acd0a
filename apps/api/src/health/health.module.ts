import { Module } from "@nestjs/common";
import { TerminusModule } from "@nestjs/terminus";
import { DatabaseHealthIndicator } from "./database.health";
import { DrainState } from "./drain-state";
import { HealthController } from "./health.controller";

@Module({
  // Failed checks are answered as a 503 problem; terminus' own error log would only repeat it.
  imports: [TerminusModule.forRoot({ logger: false })],
  controllers: [HealthController],
  providers: [DatabaseHealthIndicator, DrainState],
  exports: [DrainState],
})
export class HealthModule {}
