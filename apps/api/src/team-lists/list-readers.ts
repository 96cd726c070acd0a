import { type AnyTeamList, type Queryable, TEAM_LISTS, TeamListReader, TeamListWalker } from "@community/db/lists";

/** A declared list with the readers made for it. */
export interface ServedList {
  spec: AnyTeamList;
  /** Page mode: one statement per page (TeamListReader). */
  pages: TeamListReader<{ id: string }, unknown>;
  /** Filtered pages and cursor walks: one statement per page (TeamListWalker). */
  walks: TeamListWalker<{ id: string }, unknown>;
}

/**
 * The page reader and the walker of every declared list (TEAM_LISTS), over the reads' statements
 * (Prisma's raw queries on Database.prismaReads, on the replica when there is one). A provider of
 * TeamListsModule, made once from the database and injected into TeamListsService.
 */
export class ListReaders {
  private readonly served = new Map<string, ServedList>();

  constructor(reads: Queryable, lists: readonly AnyTeamList[] = TEAM_LISTS) {
    for (const spec of lists) {
      this.served.set(spec.list, {
        spec,
        pages: new TeamListReader(reads, spec),
        walks: new TeamListWalker(reads, spec),
      });
    }
  }

  of(spec: AnyTeamList): ServedList {
    const served = this.served.get(spec.list);
    if (served === undefined) throw new Error(`${spec.list} is not a list of TEAM_LISTS`);
    return served;
  }
}
