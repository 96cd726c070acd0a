import type { Guide } from "@community/domain";
import { Injectable } from "@nestjs/common";
import type { Member } from "../auth/member";
import type { ListPage } from "../common/list-response";
import { type ListRequest, requireTeam, tagScope, teamPageQuery, toListPage } from "../common/team-page";
import { toGuide } from "./guides.mapper";
import { GuidesRepository } from "./guides.repository";

@Injectable()
export class GuidesService {
  constructor(private readonly guides: GuidesRepository) {}

  /** A page of the guides of the caller's own team, drafts included. */
  async listTeamGuides(member: Member, request: ListRequest): Promise<ListPage<Guide>> {
    const scope = tagScope("guides", requireTeam(member), request);
    const rows = await this.guides.findTeamPage(teamPageQuery(scope, request));
    return toListPage(scope, request, rows, toGuide);
  }
}
