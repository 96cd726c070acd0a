import { type Database } from "@community/db";
import { Inject, Injectable } from "@nestjs/common";
import { TeamListReader } from "../common/team-list-reader";
import type { TeamPageQuery, TeamPageRows } from "../common/team-page";
import { DATABASE } from "../database/database.tokens";
import { GUIDES_LIST, toGuideRow } from "./guides.list";
import type { GuideRow } from "./guides.mapper";

@Injectable()
export class GuidesRepository {
  private readonly reader: TeamListReader<GuideRow>;

  constructor(@Inject(DATABASE) database: Database) {
    this.reader = new TeamListReader(
      GUIDES_LIST,
      async (text, values) => (await database.pool.query(text, values)).rows,
      toGuideRow,
    );
  }

  /**
   * One page of a team's guides, drafts first, then newest published, ties by id, with the team's
   * total and the list's version, from one snapshot (one statement).
   */
  findTeamPage(query: TeamPageQuery): Promise<TeamPageRows<GuideRow>> {
    return this.reader.read(query);
  }
}
