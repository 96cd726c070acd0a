import { type AnyTeamList, TEAM_LISTS } from "@community/db/lists";
import { All, Controller, Get, Req, Res, UseGuards } from "@nestjs/common";
import type { Request, Response } from "express";
import { AcceptJsonGuard } from "../common/accept-json.guard";
import { negotiateContentCoding } from "./content-coding";
import { type CallerTeam, CurrentTeam } from "./current-team.decorator";
import { ListAuthenticationGuard } from "./list-authentication.guard";
import { ListChangesService } from "./list-changes.service";
import { sendListPage, sendPrivateJson } from "./list-page.response";
import { parseChangesQuery, parseListQuery } from "./list-query";
import { MethodNotAllowedException } from "./team-lists.problems";
import { TeamListsService } from "./team-lists.service";

const PREFIX = "v1/me/community/team";
const LIST_PATHS = TEAM_LISTS.map((spec) => spec.list);
const CHANGES_PATHS = TEAM_LISTS.map((spec) => `${spec.list}/changes`);
/** The list each route template serves (Express keeps the matched template on request.route). */
const LIST_OF_ROUTE = new Map<string, AnyTeamList>(
  TEAM_LISTS.flatMap((spec) => [
    [`/${PREFIX}/${spec.list}`, spec],
    [`/${PREFIX}/${spec.list}/changes`, spec],
  ]),
);

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
  constructor(
    private readonly lists: TeamListsService,
    private readonly changes: ListChangesService,
  ) {}

  @Get(LIST_PATHS)
  @UseGuards(ListAuthenticationGuard, AcceptJsonGuard)
  async list(@CurrentTeam() team: CallerTeam, @Req() request: Request, @Res() response: Response): Promise<void> {
    // Headers read here rather than by @Headers() parameters: each parameter costs a param factory
    // and a pass through the global pipe on every request.
    const ifNoneMatch = request.headers["if-none-match"];
    const spec = listOf(request);
    const query = parseListQuery(spec, request.query);
    const coding = negotiateContentCoding(request.headers["accept-encoding"]);
    sendListPage(request, response, coding, await this.lists.find(spec, team, query, { ifNoneMatch, coding }));
  }

  @Get(CHANGES_PATHS)
  @UseGuards(ListAuthenticationGuard, AcceptJsonGuard)
  async listChanges(
    @CurrentTeam() team: CallerTeam,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    const spec = listOf(request);
    const query = parseChangesQuery(request.query);
    const body = await this.changes.find(spec, team, query);
    sendPrivateJson(request, response, negotiateContentCoding(request.headers["accept-encoding"]), body);
  }

  // Declared after the GET routes: Express tries routes in order, and GET must reach them.
  @All([...LIST_PATHS, ...CHANGES_PATHS])
  otherMethods(@Req() request: Request): never {
    throw new MethodNotAllowedException(request.method);
  }
}
