import { Module } from "@nestjs/common";
import { AuthModule } from "../auth/auth.module";
import { TeamListsModule } from "../team-lists/team-lists.module";
import { GuidesController } from "./guides.controller";

/** The guides list of the caller's team, its cursor walks, filters and changes feed. */
@Module({
  imports: [AuthModule, TeamListsModule],
  controllers: [GuidesController],
})
export class GuidesModule {}
