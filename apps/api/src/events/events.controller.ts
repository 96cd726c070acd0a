import { EVENTS_LIST } from "@community/db/lists";
import { All, Controller, Get, Query, Req, Res, UseGuards } from "@nestjs/common";
import type { Request, Response } from "express";
import { BearerAuthGuard } from "../auth/bearer-auth.guard";
import { AcceptJsonGuard } from "../common/accept-json.guard";
import { Public } from "../common/public.decorator";
import { type Caller, CurrentTeam } from "../team-lists/current-team.decorator";
import { ChangesQueryDto } from "../team-lists/dto/changes-query.dto";
import { ListEndpoints } from "../team-lists/list-endpoints";
import { EventsQueryDto } from "./dto/events-query.dto";

/**
 * `/v1/me/community/team/events`: a page or a cursor walk (GET, HEAD), the changes feed, and 405
 * for any other method. Behind the bearer token (passport), then Accept (406), then the query DTO
 * (400, the global ValidationPipe).
 */
// The same shape as guides.controller.ts on purpose: the card wants each list's controller, routes and DTO in its module.
@Controller("v1/me/community/team/events")
@UseGuards(BearerAuthGuard, AcceptJsonGuard)
export class EventsController {
  constructor(private readonly endpoints: ListEndpoints) {}

  @Get()
  list(@Query() query: EventsQueryDto, @CurrentTeam() team: Caller, @Res() response: Response): Promise<void> {
    return this.endpoints.page(EVENTS_LIST, query, team, response);
  }

  @Get("changes")
  changes(@Query() query: ChangesQueryDto, @CurrentTeam() team: Caller, @Res() response: Response): Promise<void> {
    return this.endpoints.changesPage(EVENTS_LIST, query, team, response);
  }

  // Declared after the GET routes: Express tries routes in order, and GET must reach them.
  @All(["", "changes"])
  @Public()
  otherMethods(@Req() request: Request): never {
    return this.endpoints.otherMethod(request);
  }
}
