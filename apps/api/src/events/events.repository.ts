import { type Database } from "@community/db";
import { Inject, Injectable } from "@nestjs/common";
import { TeamListReader } from "../common/team-list-reader";
import type { TeamPageQuery, TeamPageRows } from "../common/team-page";
import { DATABASE } from "../database/database.tokens";
import { EVENTS_LIST, toEventRow } from "./events.list";
import type { EventRow } from "./events.mapper";

@Injectable()
export class EventsRepository {
  private readonly reader: TeamListReader<EventRow>;

  constructor(@Inject(DATABASE) database: Database) {
    this.reader = new TeamListReader(
      EVENTS_LIST,
      async (text, values) => (await database.pool.query(text, values)).rows,
      toEventRow,
    );
  }

  /**
   * One page of a team's events, newest scheduled first, ties by id, with the team's total and the
   * list's version, from one snapshot (one statement). No rows when `knownVersion` is current.
   */
  findTeamPage(query: TeamPageQuery): Promise<TeamPageRows<EventRow>> {
    return this.reader.read(query);
  }
}
