import type { Event } from "@community/domain";
import { Controller, Headers, Query } from "@nestjs/common";
import { BearerAuthGuard } from "../auth/bearer-auth.guard";
import { CurrentTeam } from "../team-lists/current-team.decorator";
import { ListQueryDto, toPageRequest } from "../team-lists/list-query.dto";
import { TeamListController, TeamListRoute } from "../team-lists/team-list.controller";
import type { ListPage } from "../team-lists/team-list.service";
import { EventsService } from "./events.service";

@Controller("v1/me/community/team/events")
export class EventsController extends TeamListController {
  constructor(private readonly events: EventsService) {
    super();
  }

  /** A page of the caller's team events; the array is named `guides` by spec. */
  @TeamListRoute(BearerAuthGuard)
  list(
    @CurrentTeam() teamId: string | null,
    @Query() query: ListQueryDto,
    @Headers("if-none-match") ifNoneMatch: string | undefined,
  ): Promise<ListPage<Event>> {
    return this.events.findPage(teamId, { ...toPageRequest(query), ifNoneMatch });
  }
}
