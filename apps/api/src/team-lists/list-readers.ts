import {
  type AnyTeamList,
  type Queryable,
  TEAM_LISTS,
  type TeamList,
  TeamListReader,
  TeamListWalker,
} from "@community/db/lists";

/** A declared list with the readers made for it. */
export interface ServedList<Item> {
  spec: AnyTeamList;
  /** Page mode: one statement per page (TeamListReader). */
  pages: TeamListReader<{ id: string }, Item>;
  /** Filtered pages and cursor walks: one statement per page (TeamListWalker). */
  walks: TeamListWalker<{ id: string }, Item>;
}

/**
 * The page reader and the walker of every declared list (TEAM_LISTS), over the reads' statements
 * (Prisma's raw queries on Database.prismaReads, on the replica when there is one). A provider of
 * TeamListsModule, made once from the database and injected into TeamListsService.
 */
export class ListReaders {
  // biome-ignore lint/suspicious/noExplicitAny: every list's readers in one map; of() gives each back typed by its list
  private readonly served = new Map<string, ServedList<any>>();

  constructor(reads: Queryable, lists: readonly AnyTeamList[] = TEAM_LISTS) {
    for (const spec of lists) {
      this.served.set(spec.list, {
        spec,
        pages: new TeamListReader(reads, spec),
        walks: new TeamListWalker(reads, spec),
      });
    }
  }

  of<Row extends { id: string }, Item>(spec: TeamList<Row, Item>): ServedList<Item> {
    const served = this.served.get(spec.list);
    if (served === undefined) throw new Error(`${spec.list} is not a list of TEAM_LISTS`);
    return served;
  }
}
