import type { Database } from "@community/db";
import {
  type TeamList,
  type TeamListPages,
  type TeamListQuery,
  TeamListReader,
  type TeamListResult,
} from "@community/db/lists";

/**
 * The only place that reads a team list: one statement per page on the read pool (the replica
 * with DATABASE_READ_URL, else the primary), seeking from cached page boundaries on deep pages
 * (see TeamListReader in @community/db/lists).
 */
export class TeamListRepository<Item> {
  private constructor(private readonly pages: TeamListPages<Item>) {}

  static of<Row extends { id: string }, Item>(database: Database, list: TeamList<Row, Item>): TeamListRepository<Item> {
    return new TeamListRepository(new TeamListReader(database.reads, list));
  }

  /**
   * One page of a team's items in the list's order, with the team's total and the list's version,
   * from one snapshot (one statement). No items when `knownVersion` is current.
   */
  findPage(query: TeamListQuery): Promise<TeamListResult<Item>> {
    return this.pages.read(query);
  }
}
