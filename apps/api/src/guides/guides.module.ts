import { Module } from "@nestjs/common";
import { AuthModule } from "../auth/auth.module";
import { GuidesController } from "./guides.controller";
import { GuidesService } from "./guides.service";

@Module({
  imports: [AuthModule],
  controllers: [GuidesController],
  providers: [GuidesService],
})
export class GuidesModule {}
