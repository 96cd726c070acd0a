import type { Guide } from "@community/domain";
import { Controller, Headers, Query } from "@nestjs/common";
import { BearerAuthGuard } from "../auth/bearer-auth.guard";
import { CurrentTeam } from "../team-lists/current-team.decorator";
import { ListQueryDto, toPageRequest } from "../team-lists/list-query.dto";
import { TeamListController, TeamListRoute } from "../team-lists/team-list.controller";
import type { ListPage } from "../team-lists/team-list.service";
import { GuidesService } from "./guides.service";

@Controller("v1/me/community/team/guides")
export class GuidesController extends TeamListController {
  constructor(private readonly guides: GuidesService) {
    super();
  }

  /** A page of the caller's team guides, drafts included. */
  @TeamListRoute(BearerAuthGuard)
  list(
    @CurrentTeam() teamId: string | null,
    @Query() query: ListQueryDto,
    @Headers("if-none-match") ifNoneMatch: string | undefined,
  ): Promise<ListPage<Guide>> {
    return this.guides.findPage(teamId, { ...toPageRequest(query), ifNoneMatch });
  }
}
