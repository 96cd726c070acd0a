import { type Database, readSnapshot } from "@community/db";
import { Inject, Injectable } from "@nestjs/common";
import { ACCOUNT_SELECT } from "../common/account.mapper";
import type { TeamPageQuery, TeamPageRows } from "../common/team-page";
import { DATABASE } from "../database/database.tokens";
import type { EventRow } from "./events.mapper";

const EVENT_SELECT = {
  id: true,
  slug: true,
  name: true,
  description: true,
  coverUrl: true,
  durationSeconds: true,
  scheduledAt: true,
  liveAt: true,
  completedAt: true,
  canceledAt: true,
  offerReplayPurchase: true,
  priceInCents: true,
  currency: true,
  account: { select: ACCOUNT_SELECT },
} as const;

@Injectable()
export class EventsRepository {
  constructor(@Inject(DATABASE) private readonly database: Database) {}

  /**
   * One page of a team's events, newest scheduled first, ties by id, and the team's total, from
   * one snapshot. Served by events_team_list_idx (team_id, scheduled_at DESC, id).
   */
  findTeamPage({ teamId, offset, limit }: TeamPageQuery): Promise<TeamPageRows<EventRow>> {
    return readSnapshot(this.database.prisma, async (tx) => {
      const total = await tx.event.count({ where: { teamId } });
      const rows =
        offset >= total
          ? []
          : await tx.event.findMany({
              where: { teamId },
              orderBy: [{ scheduledAt: "desc" }, { id: "asc" }],
              skip: offset,
              take: limit,
              select: EVENT_SELECT,
            });
      return { rows, total };
    });
  }
}
