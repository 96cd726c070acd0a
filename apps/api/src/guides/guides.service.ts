import type { Database } from "@community/db";
import { GUIDES_LIST } from "@community/db/lists";
import type { Guide } from "@community/domain";
import { Inject, Injectable } from "@nestjs/common";
import { DATABASE } from "../database/database.tokens";
import { PageCache } from "../team-lists/page-cache";
import { TeamListRepository } from "../team-lists/team-list.repository";
import { TeamListService } from "../team-lists/team-list.service";

/** The guides of the caller's team, drafts first, then newest published, ties by id (GUIDES_LIST). */
@Injectable()
export class GuidesService extends TeamListService<Guide> {
  constructor(@Inject(DATABASE) database: Database, cache: PageCache) {
    super(TeamListRepository.of(database, GUIDES_LIST), GUIDES_LIST.list, cache);
  }
}
