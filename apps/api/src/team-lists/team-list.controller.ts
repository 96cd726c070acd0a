import { All, type CanActivate, Get, Headers, Query, Req, Res, type Type, UseGuards } from "@nestjs/common";
import type { Request, Response } from "express";
import { AcceptJsonGuard } from "../common/accept-json.guard";
import { negotiateContentCoding } from "./content-coding";
import { type CallerTeam, CurrentTeam } from "./current-team.decorator";
import { sendListPage } from "./list-page.response";
import { ListQueryDto, toPageRequest } from "./list-query.dto";
import type { ListRequest, TeamListService } from "./team-list.service";
import { MethodNotAllowedException } from "./team-lists.problems";

/**
 * The routes of a team list controller (the subclass names the path with @Controller): GET (and
 * HEAD) of a page behind `authentication`, then Accept (406), then the query (400); any other
 * method is a 405 with `Allow: GET, HEAD`. The handler writes the page itself (sendListPage):
 * its bytes are ready, and an interceptor would cost an rxjs pipeline per request.
 */
export function TeamListController<Item>(authentication: Type<CanActivate>) {
  abstract class TeamListRoutes {
    constructor(readonly pages: TeamListService<Item>) {}

    @Get()
    @UseGuards(authentication, AcceptJsonGuard)
    async list(
      @CurrentTeam() team: CallerTeam,
      @Query() query: ListQueryDto,
      @Headers("if-none-match") ifNoneMatch: string | undefined,
      @Headers("accept-encoding") acceptEncoding: string | undefined,
      @Req() request: Request,
      @Res() response: Response,
    ): Promise<void> {
      const list: ListRequest = {
        ...toPageRequest(query),
        ifNoneMatch,
        coding: negotiateContentCoding(acceptEncoding),
      };
      sendListPage(request, response, list, await this.pages.findPage(team, list));
    }

    // Declared after list(): Express tries routes in order, and GET must reach list().
    @All()
    otherMethods(@Req() request: Request): never {
      throw new MethodNotAllowedException(request.method);
    }
  }
  return TeamListRoutes;
}
