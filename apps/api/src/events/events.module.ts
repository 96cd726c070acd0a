import { Module } from "@nestjs/common";
import { AuthModule } from "../auth/auth.module";
import { TeamListsModule } from "../team-lists/team-lists.module";
import { EventsController } from "./events.controller";

/** The events list of the caller's team, its cursor walks, filters and changes feed. */
@Module({
  imports: [AuthModule, TeamListsModule],
  controllers: [EventsController],
})
export class EventsModule {}
