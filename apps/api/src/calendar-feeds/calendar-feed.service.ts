import { createHash } from "node:crypto";
import { hashToken } from "@community/db";
import { calendarText, feedWindowStart, type LiveCalendarFeed } from "@community/db/calendar";
import { ifNoneMatchMatches, type ListContentCoding } from "@community/domain";
import { Inject, Injectable } from "@nestjs/common";
import { InjectThrottlerStorage, type ThrottlerStorage } from "@nestjs/throttler";
import type { Request, Response } from "express";
import { LRUCache } from "lru-cache";
import { UnknownTokenCache } from "../auth/unknown-token-cache";
import { compress, negotiateContentCoding } from "../common/content-coding";
import { NotFoundProblemException } from "../common/problems";
import { APP_CONFIG, type AppConfig } from "../config/config";
import { budgetAddress, FailedAuthBudget } from "../rate-limit/failed-auth-budget";
import { KnownValidTokens } from "../rate-limit/known-valid-tokens";
import { FailedAuthenticationsLimitedException, RateLimitedException } from "../rate-limit/rate-limit.problems";
import { RedisConnection } from "../redis/redis.provider";
import { secretOfFeedFile } from "./calendar-feed-secrets";
import { CalendarFeedsRepository } from "./calendar-feeds.repository";

/** Changes whenever the text calendarText writes changes shape, so that older tags never match. */
const REPRESENTATION_REVISION = "c1";
/**
 * Feed bodies kept, by tag and coding, at most: every feed of a team (each member's devices) is the
 * same calendar, and writing 5,000 events costs a few hundred milliseconds of CPU.
 */
const BODY_CACHE_BYTES = 64 * 1024 * 1024;

/** The one answer for every secret that opens no feed (contract 11.2): nothing says whether it existed. */
export class DeadFeedException extends NotFoundProblemException {
  constructor() {
    super("No calendar feed at this address");
  }
}

/**
 * Serves `GET|HEAD /v1/calendar-feeds/{secret}.ics` (contract 11.2). A secret that opens no feed
 * spends its address's failed-authentication budget (FailedAuthBudget, shared with bearer tokens);
 * once that is spent, the address is refused from memory, with no lookup, except for feeds this
 * replica served lately (KnownValidTokens). Digests that opened nothing are remembered for a while
 * (UnknownTokenCache): a secret is random, so one that opened nothing never will. A live feed is
 * limited per feed (CALENDAR_FEED_RATE_LIMIT_MAX per window, in the rate limiter's storage), then
 * answered 304 from the lookup alone when the client's ETag is current (the tag is made of the
 * events list's state, the team's name and the window's first day), or read in one statement and
 * written by calendarText.
 */
@Injectable()
export class CalendarFeedService {
  private readonly unknown: UnknownTokenCache;
  private readonly known: KnownValidTokens;
  private readonly uidHost: string;
  /** Ready-to-send bodies by `<tag digest>-<coding>`: a tag names everything a body is made of. */
  private readonly bodies = new LRUCache<string, Buffer>({
    maxSize: BODY_CACHE_BYTES,
    sizeCalculation: (body) => Math.max(1, body.length),
  });

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly feeds: CalendarFeedsRepository,
    private readonly failedAuth: FailedAuthBudget,
    @InjectThrottlerStorage() private readonly storage: ThrottlerStorage,
    @Inject(RedisConnection) private readonly redis: RedisConnection | null,
  ) {
    this.unknown = new UnknownTokenCache(config.authUnknownTokenCacheMs);
    this.known = new KnownValidTokens(config.authKnownTokenTtlSeconds);
    this.uidHost = new URL(config.oauth.publicUrl).host;
  }

  async serve(file: string, request: Request, response: Response): Promise<void> {
    const address = budgetAddress(request.ip);
    const secret = secretOfFeedFile(file);
    const digest = secret === undefined ? undefined : hashToken(secret);
    if (this.failedAuth.enabled) {
      // As the rate-limit guard does: a dead secret of this address still being counted first.
      const counting = this.failedAuth.settled(address);
      if (counting !== undefined) await counting;
      const wait = this.failedAuth.refusedFor(address);
      if (wait > 0 && (digest === undefined || !this.known.has(digest))) {
        throw new FailedAuthenticationsLimitedException(wait, this.failedAuth.limit, this.failedAuth.windowSeconds);
      }
    }
    const feed = digest === undefined || this.unknown.has(digest) ? undefined : await this.feeds.findLive(digest);
    if (feed === undefined) {
      if (digest !== undefined) {
        this.unknown.add(digest);
        this.known.refused(digest);
      }
      if (this.failedAuth.enabled) void this.failedAuth.fail(address).catch(() => undefined);
      throw new DeadFeedException();
    }
    this.known.validated(digest as string);
    await this.spendFeedBudget(feed.id);

    const from = feedWindowStart(new Date());
    const coding = negotiateContentCoding(request.headers["accept-encoding"]);
    const tag = this.tagDigest(feed, from);
    const etag = `"${tag}${coding === "identity" ? "" : `-${coding}`}"`;
    response.setHeader("Cache-Control", "private");
    response.setHeader("Vary", "Accept-Encoding");
    response.setHeader("Referrer-Policy", "no-referrer");
    response.setHeader("X-Robots-Tag", "noindex");
    response.setHeader("ETag", etag);
    if (ifNoneMatchMatches(request.headers["if-none-match"], etag)) {
      response.status(304).end();
      return;
    }
    const body = await this.body(feed, from, tag, coding);
    response.status(200);
    response.setHeader("Content-Type", "text/calendar; charset=utf-8");
    if (coding !== "identity") response.setHeader("Content-Encoding", coding);
    response.setHeader("Content-Length", String(body.length));
    response.end(request.method === "HEAD" ? undefined : body);
  }

  /** The digest of everything a feed's body is made of; its ETag adds the content coding. */
  private tagDigest(feed: LiveCalendarFeed, from: Date): string {
    return createHash("sha256")
      .update(
        JSON.stringify([
          REPRESENTATION_REVISION,
          feed.teamId,
          feed.teamName,
          feed.eventsState,
          from.getTime(),
          this.uidHost,
        ]),
      )
      .digest("base64url")
      .slice(0, 27);
  }

  /**
   * The body in `coding`, from the cache or written now: one statement for the events. The events
   * are read after the state in the tag, so a body is never older than its tag says.
   */
  private async body(feed: LiveCalendarFeed, from: Date, digest: string, coding: ListContentCoding): Promise<Buffer> {
    const cached = this.bodies.get(`${digest}-${coding}`);
    if (cached !== undefined) return cached;
    let text = this.bodies.get(`${digest}-identity`);
    if (text === undefined) {
      const events = await this.feeds.events(feed.teamId, from);
      text = Buffer.from(calendarText({ teamName: feed.teamName, uidHost: this.uidHost, events }), "utf8");
      this.bodies.set(`${digest}-identity`, text);
    }
    if (coding === "identity") return text;
    const body = compress(text, coding);
    this.bodies.set(`${digest}-${coding}`, body);
    return body;
  }

  /** Counts a fetch of the feed; over CALENDAR_FEED_RATE_LIMIT_MAX in the window, 429 with Retry-After. */
  private async spendFeedBudget(feedId: string): Promise<void> {
    const { rateLimitMax: limit, rateLimitWindowSeconds: windowSeconds } = this.config.calendarFeeds;
    if (limit === 0) return;
    const ttl = windowSeconds * 1000;
    let record: Awaited<ReturnType<ThrottlerStorage["increment"]>>;
    try {
      record = await this.storage.increment(`calendar-feed:${feedId}`, ttl, limit, ttl, "calendar-feed");
    } catch (error) {
      // As the api's limiter: with Redis down or hung, serve rather than refuse.
      if (this.redis === null) throw error;
      this.redis.failed(error as Error);
      return;
    }
    this.redis?.answered();
    if (record.isBlocked) throw new RateLimitedException(Math.max(1, record.timeToBlockExpire), limit, windowSeconds);
  }
}
