import { Module } from "@nestjs/common";
import { AuthModule } from "../auth/auth.module";
import { TeamListsModule } from "../team-lists/team-lists.module";
import { EventsController } from "./events.controller";
import { EventsService } from "./events.service";

@Module({
  imports: [AuthModule, TeamListsModule],
  controllers: [EventsController],
  providers: [EventsService],
})
export class EventsModule {}
