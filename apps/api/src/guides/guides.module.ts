import { Module } from "@nestjs/common";
import { AuthModule } from "../auth/auth.module";
import { TeamListsModule } from "../team-lists/team-lists.module";
import { GuidesController } from "./guides.controller";
import { GuidesService } from "./guides.service";

@Module({
  imports: [AuthModule, TeamListsModule],
  controllers: [GuidesController],
  providers: [GuidesService],
})
export class GuidesModule {}
