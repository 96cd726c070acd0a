import type { Event, PageRequest } from "@community/domain";
import { Injectable } from "@nestjs/common";
import type { Member } from "../auth/member";
import type { ListPage } from "../common/list-response";
import { requireTeam, teamPageQuery, toListPage } from "../common/team-page";
import { toEvent } from "./events.mapper";
import { EventsRepository } from "./events.repository";

@Injectable()
export class EventsService {
  constructor(private readonly events: EventsRepository) {}

  /** A page of the events of the caller's own team: no input can reach another team's. */
  async listTeamEvents(member: Member, request: PageRequest): Promise<ListPage<Event>> {
    const rows = await this.events.findTeamPage(teamPageQuery(requireTeam(member), request));
    return toListPage(request, rows, toEvent);
  }
}
