import type {
  ChangesOptions,
  ChangesPage,
  Collection,
  ListOptions,
  ListPage,
  ListResult,
  LiveSyncOptions,
  SyncOptions,
  WalkOptions,
} from "./collection.ts";
import { CrossOriginLinkError, UnexpectedResponseError, WalkLimitError } from "./errors.ts";
import { checkWait, follow, type LoopEnvironment } from "./follow.ts";
import { get, type HttpOptions, type HttpResponse, jsonBody, send } from "./http.ts";
import { parseLinkHeader } from "./link-header.ts";
import { type Sleep, timerSleep } from "./pause.ts";
import { sync, syncLive } from "./sync.ts";
import {
  type Check,
  calendarFeedList,
  calendarFeedWithUrl,
  changesBody,
  event,
  guide,
  listBody,
  ShapeError,
} from "./validate.ts";
import type {
  CalendarFeed,
  CalendarFeedWithUrl,
  Event,
  EventFilters,
  Guide,
  GuideFilters,
  Instant,
  ListName,
} from "./wire.ts";

export interface ClientOptions {
  /** The api's origin (and path prefix, if any), e.g. http://localhost:3000. */
  baseUrl: string;
  /** An OAuth 2 access token, sent as Authorization: Bearer to `baseUrl`'s origin and nowhere else. */
  token: string;
  /** Defaults to the platform fetch. */
  fetch?: typeof fetch;
  /** Retries of one request after a 429 or 503, honouring Retry-After. Default 3. */
  maxRetries?: number;
  /** The most one request may spend waiting for retries, in total. Default 30 s. */
  maxRetryWaitMs?: number;
  /** The most one attempt may take, from sending it to the last byte of the body. Default 30 s. */
  timeoutMs?: number;
  /** The largest body the client reads. Default 10 MiB (a page of 100 items is far below 1 MiB). */
  maxBodyBytes?: number;
  /** The most pages one walk or one sync reads. Default 20,000. */
  maxPages?: number;
  /** The most items (or changes) one walk or one sync reads. Default 2,000,000. */
  maxItems?: number;
  /** Wait used between retries (tests replace it); the signal, when given, ends the wait early. */
  sleep?: Sleep;
}

export const CLIENT_DEFAULTS = {
  maxRetries: 3,
  maxRetryWaitMs: 30_000,
  timeoutMs: 30_000,
  maxBodyBytes: 10 * 1024 * 1024,
  maxPages: 20_000,
  maxItems: 2_000_000,
} as const;

export interface CommunityClient {
  listEvents(options?: ListOptions<EventFilters>): Promise<ListResult<Event>>;
  listGuides(options?: ListOptions<GuideFilters>): Promise<ListResult<Guide>>;
  events: Collection<Event, EventFilters>;
  guides: Collection<Guide, GuideFilters>;
  /** The caller's calendar feeds (contract 11.1; a JWT needs the scope community:calendar). */
  calendarFeeds: CalendarFeeds;
}

/** A list's path: its name (LIST_NAMES, checked against the domain's definitions in wire.spec.ts) below the team. */
const pathOf = (list: ListName): string => `/v1/me/community/team/${list}`;

/** Secret URLs that serve the team's events to calendar applications. */
export interface CalendarFeeds {
  /** A new feed; its `url` and `webcal_url` are shown in this answer only. */
  create(options?: { name?: string; signal?: AbortSignal }): Promise<CalendarFeedWithUrl>;
  /** The caller's feeds, oldest first; never a secret. */
  list(options?: { signal?: AbortSignal }): Promise<CalendarFeed[]>;
  /** A new secret URL for the feed; the old one stops at once. */
  rotate(id: string, options?: { signal?: AbortSignal }): Promise<CalendarFeedWithUrl>;
  /** Deletes the feed; its URL stops at once. */
  delete(id: string, options?: { signal?: AbortSignal }): Promise<void>;
}

const CALENDAR_FEEDS_PATH = "/v1/me/community/team/calendar-feeds";

export function createClient(options: ClientOptions): CommunityClient {
  const http: HttpOptions = {
    fetch: options.fetch ?? globalThis.fetch,
    maxRetries: options.maxRetries ?? CLIENT_DEFAULTS.maxRetries,
    maxRetryWaitMs: options.maxRetryWaitMs ?? CLIENT_DEFAULTS.maxRetryWaitMs,
    timeoutMs: options.timeoutMs ?? CLIENT_DEFAULTS.timeoutMs,
    maxBodyBytes: options.maxBodyBytes ?? CLIENT_DEFAULTS.maxBodyBytes,
    sleep: options.sleep ?? timerSleep,
  };
  const loop: LoopEnvironment = { sleep: http.sleep, now: () => Date.now() };
  const limits = {
    maxPages: options.maxPages ?? CLIENT_DEFAULTS.maxPages,
    maxItems: options.maxItems ?? CLIENT_DEFAULTS.maxItems,
  };
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const origin = new URL(baseUrl).origin;

  // Every URL requested is built from baseUrl, or is a rel="next" checked against its origin.
  // A long poll may take its wait on top of the usual timeout.
  const request = (url: string, signal?: AbortSignal, ifNoneMatch?: string, waitSeconds = 0) => {
    const headers: Record<string, string> = { Authorization: `Bearer ${options.token}`, Accept: "application/json" };
    if (ifNoneMatch !== undefined) headers["If-None-Match"] = ifNoneMatch;
    return get(url, headers, { ...http, timeoutMs: http.timeoutMs + waitSeconds * 1000 }, signal);
  };

  function collection<T extends { id: string }, F extends EventFilters | GuideFilters>(
    path: string,
    item: Check<T>,
  ): Collection<T, F> {
    const url = (params: Record<string, string | undefined>, filters?: F, suffix = "") => {
      const target = new URL(`${baseUrl}${path}${suffix}`);
      for (const [name, value] of Object.entries({ ...params, ...filterParams(filters) })) {
        if (value !== undefined) target.searchParams.set(name, value);
      }
      return target.toString();
    };

    async function fetchPage(target: string, signal?: AbortSignal, ifNoneMatch?: string): Promise<ListResult<T>> {
      const response = await request(target, signal, ifNoneMatch);
      const etag = response.headers.get("etag") ?? undefined;
      if (response.status === 304) return { notModified: true, etag };
      const body = validated(response, listBody(item));
      const links = parseLinks(response);
      if ("next_cursor" in body.pagination) {
        const pagination = body.pagination;
        return {
          notModified: false,
          mode: "cursor",
          items: body.guides,
          pagination,
          nextCursor: pagination.next_cursor,
          etag,
          links,
        };
      }
      const total = response.headers.get("x-total-count");
      return {
        notModified: false,
        mode: "page",
        items: body.guides,
        pagination: body.pagination,
        totalCount: total !== null && /^[0-9]+$/.test(total) ? Number(total) : undefined,
        etag,
        links,
      };
    }

    const list = (listOptions: ListOptions<F> = {}) =>
      fetchPage(
        url(
          {
            page: listOptions.page?.toString(),
            cursor: listOptions.cursor,
            per_page: listOptions.perPage?.toString(),
          },
          listOptions.filters,
        ),
        listOptions.signal,
        listOptions.ifNoneMatch,
      );

    async function* all(walk: WalkOptions<T, F> = {}): AsyncGenerator<T> {
      const perPage = walk.perPage?.toString();
      let next: string | undefined = url({ cursor: "", per_page: perPage }, walk.filters);
      const seen = new Set<string>();
      let pages = 0;
      let items = 0;
      while (next !== undefined) {
        if (pages >= limits.maxPages) throw new WalkLimitError("maxPages", limits.maxPages, next);
        // A server that sends a page back to one it already served would loop until the limit.
        if (seen.has(next)) throw new UnexpectedResponseError(200, next, "the next page is one already read");
        seen.add(next);
        const page: ListResult<T> = await fetchPage(next, walk.signal);
        if (page.notModified) throw new UnexpectedResponseError(304, next, "a 304 without If-None-Match");
        pages++;
        items += page.items.length;
        if (items > limits.maxItems) throw new WalkLimitError("maxItems", limits.maxItems, next);
        walk.onPage?.(page);
        yield* page.items;
        const current: string = next;
        if (page.mode === "cursor") {
          next =
            page.nextCursor === null ? undefined : url({ cursor: page.nextCursor, per_page: perPage }, walk.filters);
        } else {
          next = page.links.next;
          if (next !== undefined && new URL(next).origin !== origin) throw new CrossOriginLinkError(200, current, next);
        }
      }
    }

    async function changes(changesOptions: ChangesOptions = {}): Promise<ChangesPage<T>> {
      const { since, perPage, wait, signal } = changesOptions;
      checkWait(wait);
      if (wait !== undefined && since === undefined) {
        throw new TypeError("wait needs since: a long poll waits for the changes after a token");
      }
      const response = await request(
        url({ since, per_page: perPage?.toString(), wait: wait?.toString() }, undefined, "/changes"),
        signal,
        undefined,
        wait,
      );
      return validated(response, changesBody(item));
    }

    const self: Collection<T, F> = {
      list,
      all,
      changes,
      follow: (followOptions = {}) => follow(changes, followOptions, loop),
      sync: ((store, syncOptions?: SyncOptions | LiveSyncOptions) =>
        syncOptions?.live === true
          ? syncLive(self, store, limits, syncOptions, loop)
          : sync(self, store, limits, syncOptions)) as Collection<T, F>["sync"],
    };
    return self;
  }

  const events = collection<Event, EventFilters>(pathOf("events"), event);
  const guides = collection<Guide, GuideFilters>(pathOf("guides"), guide);

  // A feed id goes into the path as one segment, whatever it holds.
  const feedUrl = (id?: string, suffix = "") =>
    `${baseUrl}${CALENDAR_FEEDS_PATH}${id === undefined ? "" : `/${encodeURIComponent(id)}`}${suffix}`;
  const call = (method: string, url: string, body: unknown, signal?: AbortSignal) => {
    const headers: Record<string, string> = { Authorization: `Bearer ${options.token}`, Accept: "application/json" };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    return send(method, url, headers, body === undefined ? undefined : JSON.stringify(body), http, signal);
  };
  const calendarFeeds: CalendarFeeds = {
    async create({ name, signal } = {}) {
      const response = await call("POST", feedUrl(), name === undefined ? {} : { name }, signal);
      return validated(response, calendarFeedWithUrl);
    },
    async list({ signal } = {}) {
      return validated(await call("GET", feedUrl(), undefined, signal), calendarFeedList).calendar_feeds;
    },
    async rotate(id, { signal } = {}) {
      return validated(await call("POST", feedUrl(id, "/rotate"), undefined, signal), calendarFeedWithUrl);
    },
    async delete(id, { signal } = {}) {
      await call("DELETE", feedUrl(id), undefined, signal);
    },
  };
  return { listEvents: events.list, listGuides: guides.list, events, guides, calendarFeeds };
}

function validated<B>(response: HttpResponse, check: Check<B>): B {
  try {
    return check(jsonBody(response), "body");
  } catch (error) {
    if (error instanceof ShapeError) throw new UnexpectedResponseError(response.status, response.url, error.message);
    throw error;
  }
}

function filterParams(filters: EventFilters | GuideFilters | undefined): Record<string, string | undefined> {
  if (filters === undefined) return {};
  const instant = (value: Instant | undefined) => (value instanceof Date ? value.toISOString() : value);
  const params: Record<string, string | undefined> = { status: filters.status?.join(",") };
  if ("scheduledFrom" in filters || "scheduledTo" in filters) {
    const { scheduledFrom, scheduledTo } = filters as EventFilters;
    Object.assign(params, { scheduled_from: instant(scheduledFrom), scheduled_to: instant(scheduledTo) });
  }
  if ("publishedFrom" in filters || "publishedTo" in filters) {
    const { publishedFrom, publishedTo } = filters as GuideFilters;
    Object.assign(params, { published_from: instant(publishedFrom), published_to: instant(publishedTo) });
  }
  return params;
}

function parseLinks(response: HttpResponse): ListPage<unknown>["links"] {
  const header = response.headers.get("link");
  if (header === null) return {};
  const targets = parseLinkHeader(header, response.url);
  const links: ListPage<unknown>["links"] = {};
  for (const rel of ["first", "prev", "next", "last"] as const) {
    const target = targets.get(rel);
    if (target !== undefined) links[rel] = target;
  }
  return links;
}
