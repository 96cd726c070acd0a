import { type AnyTeamList, TEAM_LISTS } from "@community/db/lists";
import { All, Controller, Get, Headers, Req, Res, UseGuards } from "@nestjs/common";
import type { Request, Response } from "express";
import { AcceptJsonGuard } from "../common/accept-json.guard";
import { negotiateContentCoding } from "./content-coding";
import { type CallerTeam, CurrentTeam } from "./current-team.decorator";
import { ListAuthenticationGuard } from "./list-authentication.guard";
import { sendListPage } from "./list-page.response";
import { parseListQuery } from "./list-query";
import { MethodNotAllowedException } from "./team-lists.problems";
import { TeamListsService } from "./team-lists.service";

const PREFIX = "v1/me/community/team";
const LIST_PATHS = TEAM_LISTS.map((spec) => spec.list);
/** The list each route template serves (Express keeps the matched template on request.route). */
const LIST_OF_ROUTE = new Map<string, AnyTeamList>(TEAM_LISTS.map((spec) => [`/${PREFIX}/${spec.list}`, spec]));

function listOf(request: Request): AnyTeamList {
  const spec = LIST_OF_ROUTE.get(String(request.route?.path));
  if (spec === undefined) throw new Error(`no team list is declared for the route ${String(request.route?.path)}`);
  return spec;
}

/**
 * The routes of every declared list (TEAM_LISTS): GET (and HEAD) of a page or a cursor walk, and
 * of its changes, behind authentication, then Accept (406), then the query (400); any other method
 * is a 405 with `Allow: GET, HEAD`. The handlers write the response themselves: page bytes come
 * ready from the page cache.
 */
@Controller(PREFIX)
export class TeamListsController {
  constructor(private readonly lists: TeamListsService) {}

  @Get(LIST_PATHS)
  @UseGuards(ListAuthenticationGuard, AcceptJsonGuard)
  async list(
    @CurrentTeam() team: CallerTeam,
    @Headers("if-none-match") ifNoneMatch: string | undefined,
    @Headers("accept-encoding") acceptEncoding: string | undefined,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    const spec = listOf(request);
    const query = parseListQuery(spec, request.query);
    const coding = negotiateContentCoding(acceptEncoding);
    sendListPage(request, response, coding, await this.lists.find(spec, team, query, { ifNoneMatch, coding }));
  }

  // Declared after the GET routes: Express tries routes in order, and GET must reach them.
  @All(LIST_PATHS)
  otherMethods(@Req() request: Request): never {
    throw new MethodNotAllowedException(request.method);
  }
}
