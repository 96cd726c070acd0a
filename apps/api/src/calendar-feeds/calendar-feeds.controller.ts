import {
  CALENDAR_SCOPE,
  type CalendarFeedList,
  type CalendarFeedResource,
  type CalendarFeedWithUrl,
} from "@community/domain";
import {
  All,
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  Post,
  Req,
  Res,
  UseGuards,
  UseInterceptors,
  UsePipes,
} from "@nestjs/common";
import type { Request, Response } from "express";
import { type AuthenticatedRequest, BearerAuthGuard } from "../auth/bearer-auth.guard";
import { AcceptJsonGuard } from "../common/accept-json.guard";
import { JsonBodyInterceptor, JsonBodyValidationPipe } from "../common/json-body";
import { Public, RequiredScope } from "../common/public.decorator";
import { APP_CONFIG, type AppConfig } from "../config/config";
import { MethodNotAllowedException } from "../team-lists/team-lists.problems";
import { calendarFeedResource, calendarFeedWithUrl } from "./calendar-feed-resources";
import { CalendarFeedsService } from "./calendar-feeds.service";
import { CreateCalendarFeedDto } from "./dto/create-calendar-feed.dto";

export const CALENDAR_FEEDS_PATH = "v1/me/community/team/calendar-feeds";

/**
 * `/v1/me/community/team/calendar-feeds` (contract 11.1): the caller's feeds, each visible to its
 * user only. Behind the bearer token (passport) with the scope community:calendar, then Accept
 * (406); the body is JSON (JsonBodyInterceptor) validated by class-validator (JsonBodyValidationPipe).
 */
@Controller(CALENDAR_FEEDS_PATH)
@UseGuards(BearerAuthGuard, AcceptJsonGuard)
@RequiredScope(CALENDAR_SCOPE)
export class CalendarFeedsController {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly feeds: CalendarFeedsService,
  ) {}

  @Post()
  @UseInterceptors(JsonBodyInterceptor)
  @UsePipes(new JsonBodyValidationPipe({ optional: true }))
  async create(
    @Body() body: CreateCalendarFeedDto,
    @Req() request: AuthenticatedRequest,
    @Res({ passthrough: true }) response: Response,
  ): Promise<CalendarFeedWithUrl> {
    const { feed, secret } = await this.feeds.create(request.user, body);
    response.status(201).location(`/${CALENDAR_FEEDS_PATH}/${feed.id}`).set("Cache-Control", "no-store");
    return calendarFeedWithUrl(feed, this.config.oauth.publicUrl, secret);
  }

  @Get()
  async list(@Req() request: AuthenticatedRequest): Promise<CalendarFeedList> {
    return { calendar_feeds: (await this.feeds.list(request.user)).map(calendarFeedResource) };
  }

  @Get(":id")
  async get(@Param("id") id: string, @Req() request: AuthenticatedRequest): Promise<CalendarFeedResource> {
    return calendarFeedResource(await this.feeds.get(request.user, id));
  }

  @Delete(":id")
  @HttpCode(204)
  async delete(@Param("id") id: string, @Req() request: AuthenticatedRequest): Promise<void> {
    await this.feeds.delete(request.user, id);
  }

  @Post(":id/rotate")
  @HttpCode(200)
  async rotate(
    @Param("id") id: string,
    @Req() request: AuthenticatedRequest,
    @Res({ passthrough: true }) response: Response,
  ): Promise<CalendarFeedWithUrl> {
    const { feed, secret } = await this.feeds.rotate(request.user, id);
    response.set("Cache-Control", "no-store");
    return calendarFeedWithUrl(feed, this.config.oauth.publicUrl, secret);
  }

  // As in webhooks.controller.ts: each controller declares its own paths' 405s, so its routes read in one place.
  // The 405s, declared after the routes above (Express tries routes in order).
  @All()
  @Public()
  collectionOtherMethods(@Req() request: Request): never {
    throw new MethodNotAllowedException(request.method, "GET, HEAD, POST");
  }

  @All(":id")
  @Public()
  feedOtherMethods(@Req() request: Request): never {
    throw new MethodNotAllowedException(request.method, "GET, HEAD, DELETE");
  }

  @All(":id/rotate")
  @Public()
  rotateOtherMethods(@Req() request: Request): never {
    throw new MethodNotAllowedException(request.method, "POST");
  }
}
