import { type Database, prismaStatements } from "@community/db";
import { type FeedEventRow, findFeedBySecretHash, type LiveCalendarFeed, readFeedEvents } from "@community/db/calendar";
import { CALENDAR_FEED_ID } from "@community/domain";
import { Inject, Injectable } from "@nestjs/common";
import { DATABASE } from "../database/database.tokens";

export interface CalendarFeedRow {
  id: string;
  name: string | null;
  createdAt: Date;
  lastFetchedAt: Date | null;
}

const FEED_FIELDS = { id: true, name: true, createdAt: true, lastFetchedAt: true } as const;

/**
 * The calendar feeds through Prisma, each read and changed only by its owner (another user's feed
 * is never told apart from a missing one), and the two statements of a fetch: the feed by its
 * secret's hash, and its events.
 */
@Injectable()
export class CalendarFeedsRepository {
  constructor(@Inject(DATABASE) private readonly database: Database) {}

  list(userId: string): Promise<CalendarFeedRow[]> {
    return this.database.prisma.calendarFeed.findMany({
      where: { userId },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      select: FEED_FIELDS,
    });
  }

  find(userId: string, id: string): Promise<CalendarFeedRow | null> {
    if (!CALENDAR_FEED_ID.test(id)) return Promise.resolve(null);
    return this.database.prisma.calendarFeed.findFirst({ where: { id, userId }, select: FEED_FIELDS });
  }

  /**
   * Stores a feed of `userId` for `teamId` unless the user holds `max` already: one transaction,
   * serialized per user (an advisory lock), so that two creations at once cannot pass the bound
   * together. Null when the bound is reached.
   */
  create(
    feed: { id: string; userId: string; teamId: string; name: string | null; secretHash: string },
    max: number,
  ): Promise<CalendarFeedRow | null> {
    return this.database.prisma.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`calendar-feeds:${feed.userId}`}, 0))`;
      if ((await tx.calendarFeed.count({ where: { userId: feed.userId } })) >= max) return null;
      // Only while the user is still in that team: a feed is never made for a team just left.
      const member = await tx.user.count({ where: { id: feed.userId, teamId: feed.teamId } });
      if (member === 0) return null;
      return tx.calendarFeed.create({ data: feed, select: FEED_FIELDS });
    });
  }

  async delete(userId: string, id: string): Promise<boolean> {
    if (!CALENDAR_FEED_ID.test(id)) return false;
    const { count } = await this.database.prisma.calendarFeed.deleteMany({ where: { id, userId } });
    return count === 1;
  }

  /** Replaces the secret's hash: the old secret finds nothing from this commit on. */
  async rotate(userId: string, id: string, secretHash: string): Promise<CalendarFeedRow | null> {
    if (!CALENDAR_FEED_ID.test(id)) return null;
    const { count } = await this.database.prisma.calendarFeed.updateMany({
      where: { id, userId },
      data: { secretHash },
    });
    return count === 1 ? this.find(userId, id) : null;
  }

  /** The live feed a secret's hash opens (and its fetch time noted, at most every 5 minutes). */
  findLive(secretHash: string): Promise<LiveCalendarFeed | undefined> {
    return findFeedBySecretHash(prismaStatements(this.database.prisma), secretHash);
  }

  events(teamId: string, from: Date): Promise<FeedEventRow[]> {
    return readFeedEvents(prismaStatements(this.database.prisma), teamId, from);
  }
}
