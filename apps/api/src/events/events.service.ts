import type { Event } from "@community/domain";
import { Injectable } from "@nestjs/common";
import type { Member } from "../auth/member";
import type { ListPage } from "../common/list-response";
import { type ListRequest, requireTeam, tagScope, teamPageQuery, toListPage } from "../common/team-page";
import { toEvent } from "./events.mapper";
import { EventsRepository } from "./events.repository";

@Injectable()
export class EventsService {
  constructor(private readonly events: EventsRepository) {}

  /** A page of the events of the caller's own team: no input can reach another team's. */
  async listTeamEvents(member: Member, request: ListRequest): Promise<ListPage<Event>> {
    const scope = tagScope("events", requireTeam(member), request);
    const rows = await this.events.findTeamPage(teamPageQuery(scope, request));
    return toListPage(scope, request, rows, toEvent);
  }
}
