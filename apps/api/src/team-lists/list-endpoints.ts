import type { TeamList } from "@community/db/lists";
import type { ListDefinition } from "@community/domain";
import { Injectable } from "@nestjs/common";
import type { Request, Response } from "express";
import { negotiateContentCoding } from "../common/content-coding";
import { extendRequestClock } from "../security/request-hardening";
import type { Caller } from "./current-team.decorator";
import type { ChangesQueryDto } from "./dto/changes-query.dto";
import type { ListQueryOf } from "./dto/list-query.dto";
import { ListChangesService, type WaitingCaller } from "./list-changes.service";
import { sendListPage, sendPrivateJson } from "./list-page.response";
import { changesQueryOf, listQueryOf } from "./list-query";
import { MethodNotAllowedException } from "./team-lists.problems";
import { TeamListsService } from "./team-lists.service";

/**
 * What the controller of every team list does once its route, guards and DTO have run: a page or
 * cursor walk, the changes feed and the 405, for the list it names. The controllers
 * (EventsController, GuidesController) declare the routes, the guards and the query DTOs; the
 * responses are written here, as page bytes come ready from the page cache.
 */
@Injectable()
export class ListEndpoints {
  constructor(
    private readonly lists: TeamListsService,
    private readonly changes: ListChangesService,
  ) {}

  async page<Row extends { id: string }, Item, D extends ListDefinition>(
    spec: TeamList<Row, Item, D>,
    query: ListQueryOf<D>,
    team: Caller,
    response: Response,
  ): Promise<void> {
    // The request and its headers read from the response rather than by @Req() and @Headers()
    // parameters: each parameter costs a param factory and a pass through the global pipe.
    const request = response.req;
    const coding = negotiateContentCoding(request.headers["accept-encoding"]);
    const ifNoneMatch = request.headers["if-none-match"];
    const page = await this.lists.find(spec, team, listQueryOf(spec.definition, query), { ifNoneMatch, coding });
    sendListPage(request, response, coding, page);
  }

  async changesPage<Row extends { id: string }, Item>(
    spec: TeamList<Row, Item>,
    query: ChangesQueryDto,
    team: Caller,
    response: Response,
  ): Promise<void> {
    const request = response.req;
    const changes = changesQueryOf(query);
    // HEAD is answered at once: a client that asks for headers alone is not waiting for a change.
    let hold: WaitingCaller | undefined;
    if (changes.wait > 0 && request.method === "GET") {
      const ended = new AbortController();
      response.once("close", () => ended.abort());
      extendRequestClock(response, changes.wait * 1000);
      hold = { holder: team.tokenDigest, signal: ended.signal };
    }
    const body = await this.changes.find(spec, team, changes, hold);
    sendPrivateJson(request, response, negotiateContentCoding(request.headers["accept-encoding"]), body);
  }

  otherMethod(request: Request): never {
    throw new MethodNotAllowedException(request.method);
  }
}
