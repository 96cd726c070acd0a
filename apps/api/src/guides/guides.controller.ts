import type { Guide } from "@community/domain";
import { Controller } from "@nestjs/common";
import { BearerAuthGuard } from "../auth/bearer-auth.guard";
import { TeamListController } from "../team-lists/team-list.controller";
import { GuidesService } from "./guides.service";

/** Pages of the caller's team guides, drafts included. */
@Controller("v1/me/community/team/guides")
export class GuidesController extends TeamListController<Guide>(BearerAuthGuard) {
  constructor(guides: GuidesService) {
    super(guides);
  }
}
