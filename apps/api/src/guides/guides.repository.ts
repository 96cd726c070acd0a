import { type Database, readSnapshot } from "@community/db";
import { Inject, Injectable } from "@nestjs/common";
import { ACCOUNT_SELECT } from "../common/account.mapper";
import type { TeamPageQuery, TeamPageRows } from "../common/team-page";
import { DATABASE } from "../database/database.tokens";
import type { GuideRow } from "./guides.mapper";

const GUIDE_SELECT = {
  id: true,
  slug: true,
  name: true,
  description: true,
  coverUrl: true,
  publishedAt: true,
  priceInCents: true,
  currency: true,
  account: { select: ACCOUNT_SELECT },
} as const;

@Injectable()
export class GuidesRepository {
  constructor(@Inject(DATABASE) private readonly database: Database) {}

  /**
   * One page of a team's guides, drafts first, then newest published, ties by id, and the team's
   * total, from one snapshot. Served by guides_team_list_idx (team_id, published_at DESC, id).
   */
  findTeamPage({ teamId, offset, limit }: TeamPageQuery): Promise<TeamPageRows<GuideRow>> {
    return readSnapshot(this.database.prisma, async (tx) => {
      const total = await tx.guide.count({ where: { teamId } });
      const rows =
        offset >= total
          ? []
          : await tx.guide.findMany({
              where: { teamId },
              orderBy: [{ publishedAt: { sort: "desc", nulls: "first" } }, { id: "asc" }],
              skip: offset,
              take: limit,
              select: GUIDE_SELECT,
            });
      return { rows, total };
    });
  }
}
