import type { Database } from "@community/db";
import { EVENTS_LIST } from "@community/db/lists";
import type { Event } from "@community/domain";
import { Inject, Injectable } from "@nestjs/common";
import { DATABASE } from "../database/database.tokens";
import { PageCache } from "../team-lists/page-cache";
import { TeamListRepository } from "../team-lists/team-list.repository";
import { TeamListService } from "../team-lists/team-list.service";

/** The events of the caller's team, newest scheduled first, ties by id (EVENTS_LIST). */
@Injectable()
export class EventsService extends TeamListService<Event> {
  constructor(@Inject(DATABASE) database: Database, cache: PageCache) {
    super(TeamListRepository.of(database, EVENTS_LIST), EVENTS_LIST.list, cache);
  }
}
