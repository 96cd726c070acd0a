import { Module } from "@nestjs/common";
import { AuthModule } from "../auth/auth.module";
import { RateLimitModule } from "../rate-limit/rate-limit.module";
import { RedisModule } from "../redis/redis.module";
import { CalendarFeedController } from "./calendar-feed.controller";
import { CalendarFeedService } from "./calendar-feed.service";
import { CalendarFeedsController } from "./calendar-feeds.controller";
import { CalendarFeedsRepository } from "./calendar-feeds.repository";
import { CalendarFeedsService } from "./calendar-feeds.service";

/**
 * Calendar feeds (contract 11): their management behind a bearer token (CalendarFeedsController,
 * CalendarFeedsService), the feed itself behind its secret URL (CalendarFeedController,
 * CalendarFeedService), and their storage (CalendarFeedsRepository, Prisma).
 */
@Module({
  imports: [AuthModule, RateLimitModule, RedisModule],
  controllers: [CalendarFeedsController, CalendarFeedController],
  providers: [CalendarFeedsService, CalendarFeedService, CalendarFeedsRepository],
})
export class CalendarFeedsModule {}
