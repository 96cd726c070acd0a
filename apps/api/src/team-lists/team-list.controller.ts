import { All, type CanActivate, Get, Headers, Query, Req, type Type, UseGuards, UseInterceptors } from "@nestjs/common";
import type { Request } from "express";
import { AcceptJsonGuard } from "../common/accept-json.guard";
import { CurrentTeam } from "./current-team.decorator";
import { ListPageInterceptor } from "./list-page.interceptor";
import { ListQueryDto, toPageRequest } from "./list-query.dto";
import type { ListPage, TeamListService } from "./team-list.service";
import { MethodNotAllowedException } from "./team-lists.problems";

/**
 * The routes of a team list controller (the subclass names the path with @Controller): GET (and
 * HEAD) of a page behind `authentication`, then Accept (406), then the query (400); any other
 * method is a 405 with `Allow: GET, HEAD`. The handler returns the page; ListPageInterceptor
 * turns it into the body, the headers and 304.
 */
export function TeamListController<Item>(authentication: Type<CanActivate>) {
  abstract class TeamListRoutes {
    constructor(readonly pages: TeamListService<Item>) {}

    @Get()
    @UseGuards(authentication, AcceptJsonGuard)
    @UseInterceptors(ListPageInterceptor)
    list(
      @CurrentTeam() teamId: string | null,
      @Query() query: ListQueryDto,
      @Headers("if-none-match") ifNoneMatch: string | undefined,
    ): Promise<ListPage<Item>> {
      return this.pages.findPage(teamId, { ...toPageRequest(query), ifNoneMatch });
    }

    // Declared after list(): Express tries routes in order, and GET must reach list().
    @All()
    otherMethods(@Req() request: Request): never {
      throw new MethodNotAllowedException(request.method);
    }
  }
  return TeamListRoutes;
}
