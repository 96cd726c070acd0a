import type { Event } from "@community/domain";
import { All, Controller, Get, Query, Req, Res, UseGuards } from "@nestjs/common";
import type { Request, Response } from "express";
import { BearerAuthGuard } from "../auth/bearer-auth.guard";
import { CurrentMember } from "../auth/current-member.decorator";
import type { Member } from "../auth/member";
import { AcceptJsonGuard } from "../common/accept-json.guard";
import { ListQueryDto, toPageRequest } from "../common/list-query.dto";
import { sendListPage } from "../common/list-response";
import { MethodNotAllowedException } from "../common/problems";
import { EventsService } from "./events.service";

@Controller("v1/me/community/team/events")
export class EventsController {
  constructor(private readonly events: EventsService) {}

  /** GET (and HEAD) a page of the caller's team events; the array is named `guides` by spec. */
  @Get()
  @UseGuards(BearerAuthGuard, AcceptJsonGuard)
  async list(
    @CurrentMember() member: Member,
    @Query() query: ListQueryDto,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    const page = await this.events.listTeamEvents(member, {
      ...toPageRequest(query),
      ifNoneMatch: request.header("if-none-match"),
    });
    sendListPage<Event>(request, response, page);
  }

  @All()
  otherMethods(@Req() request: Request): never {
    throw new MethodNotAllowedException(request.method);
  }
}
