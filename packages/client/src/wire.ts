/**
 * What the client reads from the api (contract sections 2, 5, 7 and 9). They are declared here,
 * not imported from the workspace's domain package, so that the published declarations stand
 * alone: the domain package's Problem is inferred from a zod schema and would bring zod's types
 * (and the package's runtime dependencies) into every consumer. `wire.spec.ts` fails to compile
 * when these and the domain's types drift apart.
 */

/** `YYYY-MM-DDTHH:MM:SSZ`: UTC, second precision. */
export type Timestamp = string;

/** An ISO 4217 alphabetic currency code, upper case. */
export type CurrencyCode = string;

export interface Price {
  value: number;
  value_in_cents: number;
  currency: CurrencyCode;
}

export interface Account {
  id: string;
  slug: string;
  name: string;
  partner: boolean;
  profile_image_url: string | null;
  cover_image_url: string | null;
}

export interface Event {
  id: string;
  slug: string;
  duration_seconds: number;
  scheduled_at: Timestamp;
  live_at: Timestamp | null;
  completed_at: Timestamp | null;
  canceled_at: Timestamp | null;
  offer_replay_purchase: boolean;
  name: string;
  description: string | null;
  cover_url: string | null;
  price: Price;
  account: Account;
}

export interface Guide {
  id: string;
  slug: string;
  /** `null` while the guide is a draft. */
  published_at: Timestamp | null;
  name: string;
  description: string | null;
  cover_url: string | null;
  price: Price;
  account: Account;
}

/** `meta.pagination` in page mode. */
export interface Pagination {
  current_page: number;
  per_page: number;
  total_pages: number;
}

/** `meta.pagination` in cursor mode (contract 9.1): `next_cursor` is null on the last page. */
export interface CursorPagination {
  per_page: number;
  next_cursor: string | null;
}

export interface ParameterError {
  parameter: string;
  message: string;
}

/** An RFC 9457 problem; members the client does not know are kept. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  errors?: ParameterError[];
  [member: string]: unknown;
}

/** One entry of a changes response (contract 9.3). */
export type Change<T> = { op: "upsert"; id: string; item: T } | { op: "delete"; id: string };

export const EVENT_STATUSES = ["scheduled", "live", "completed", "canceled"] as const;
export type EventStatus = (typeof EVENT_STATUSES)[number];
export const GUIDE_STATUSES = ["draft", "published"] as const;
export type GuideStatus = (typeof GUIDE_STATUSES)[number];

/** An instant for a filter window: a Date, or an RFC 3339 date-time with `Z` or an offset. */
export type Instant = Date | string;

/** Filters of the events list (contract 9.2): `scheduledFrom <= scheduled_at < scheduledTo`. */
export interface EventFilters {
  status?: readonly EventStatus[];
  scheduledFrom?: Instant;
  scheduledTo?: Instant;
}

/** Filters of the guides list (contract 9.2): drafts never match a published window. */
export interface GuideFilters {
  status?: readonly GuideStatus[];
  publishedFrom?: Instant;
  publishedTo?: Instant;
}

/** The team's lists, as webhook notices name them. */
export const LIST_NAMES = ["events", "guides"] as const;
export type ListName = (typeof LIST_NAMES)[number];

export const WEBHOOK_NOTICE_TYPES = ["events.changed", "guides.changed", "webhook.ping"] as const;
export type WebhookNoticeType = (typeof WEBHOOK_NOTICE_TYPES)[number];

/**
 * The body of a webhook notice (contract 10.2). It only says "ask the changes feed of this list
 * now": it carries no item, and a missed or repeated notice costs no data. `webhook.ping` is the
 * notice sent when a subscription is created, to prove that the URL answers.
 */
export interface WebhookNotice {
  type: WebhookNoticeType;
  /** When the service sent it: RFC 3339, UTC. */
  timestamp: string;
  data: {
    list: ListName;
    /** That list's changes feed as a path (`/v1/me/community/team/events/changes`): ask it with your own base URL and token. */
    changes: string;
  };
}

/** A calendar feed (contract 11.1): never its secret. */
export interface CalendarFeed {
  id: string;
  /** The name given at creation; null when none was. */
  name: string | null;
  /** RFC 3339, UTC, with milliseconds. */
  created_at: string;
  /** When it was last fetched (updated at most every 5 minutes); null before the first fetch. */
  last_fetched_at: string | null;
}

/** A feed just created or rotated: its secret URL, shown this once. */
export interface CalendarFeedWithUrl extends CalendarFeed {
  /** `<base URL>/v1/calendar-feeds/<secret>.ics`: whoever holds it reads the team's events. */
  url: string;
  /** The same with `webcal://`, which calendar applications open as a subscription. */
  webcal_url: string;
}
