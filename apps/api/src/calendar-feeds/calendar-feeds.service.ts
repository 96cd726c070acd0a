import { Inject, Injectable } from "@nestjs/common";
import type { Member } from "../auth/member";
import { APP_CONFIG, type AppConfig } from "../config/config";
import { NoCommunityTeamException } from "../team-lists/team-lists.problems";
import { newCalendarFeedId, newCalendarFeedSecret } from "./calendar-feed-secrets";
import { CalendarFeedLimitException, CalendarFeedNotFoundException } from "./calendar-feeds.problems";
import { type CalendarFeedRow, CalendarFeedsRepository } from "./calendar-feeds.repository";
import type { CreateCalendarFeedDto } from "./dto/create-calendar-feed.dto";

/** The calendar feeds' management (contract 11.1), each use case scoped to the caller's user. */
@Injectable()
export class CalendarFeedsService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly feeds: CalendarFeedsRepository,
  ) {}

  async create(member: Member, body: CreateCalendarFeedDto): Promise<{ feed: CalendarFeedRow; secret: string }> {
    if (member.teamId === null) throw new NoCommunityTeamException();
    const max = this.config.calendarFeeds.feedsMax;
    const { secret, hash } = newCalendarFeedSecret();
    const feed = await this.feeds.create(
      {
        id: newCalendarFeedId(),
        userId: member.userId,
        teamId: member.teamId,
        name: body.name ?? null,
        secretHash: hash,
      },
      max,
    );
    if (feed === null) throw new CalendarFeedLimitException(max);
    return { feed, secret };
  }

  list(member: Member): Promise<CalendarFeedRow[]> {
    return this.feeds.list(member.userId);
  }

  async get(member: Member, id: string): Promise<CalendarFeedRow> {
    return (await this.feeds.find(member.userId, id)) ?? notFound();
  }

  async delete(member: Member, id: string): Promise<void> {
    if (!(await this.feeds.delete(member.userId, id))) notFound();
  }

  async rotate(member: Member, id: string): Promise<{ feed: CalendarFeedRow; secret: string }> {
    const { secret, hash } = newCalendarFeedSecret();
    const feed = (await this.feeds.rotate(member.userId, id, hash)) ?? notFound();
    return { feed, secret };
  }
}

function notFound(): never {
  throw new CalendarFeedNotFoundException();
}
