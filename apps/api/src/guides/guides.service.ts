import type { Guide, PageRequest } from "@community/domain";
import { Injectable } from "@nestjs/common";
import type { Member } from "../auth/member";
import type { ListPage } from "../common/list-response";
import { requireTeam, teamPageQuery, toListPage } from "../common/team-page";
import { toGuide } from "./guides.mapper";
import { GuidesRepository } from "./guides.repository";

@Injectable()
export class GuidesService {
  constructor(private readonly guides: GuidesRepository) {}

  /** A page of the guides of the caller's own team, drafts included. */
  async listTeamGuides(member: Member, request: PageRequest): Promise<ListPage<Guide>> {
    const rows = await this.guides.findTeamPage(teamPageQuery(requireTeam(member), request));
    return toListPage(request, rows, toGuide);
  }
}
