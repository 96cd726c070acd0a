import type { Account, CalendarFeed, CalendarFeedWithUrl, Event, Guide, Price } from "@community/client";

export type Cell = string | number | boolean | null;

export interface Column<T> {
  header: string;
  value(item: T): Cell;
  /** Shown in the table format (CSV and JSON carry every field). */
  inTable?: boolean;
}

const priceColumns = <T extends { price: Price }>(): Column<T>[] => [
  { header: "price", value: (i) => `${i.price.value} ${i.price.currency}`, inTable: true },
  { header: "price_value", value: (i) => i.price.value },
  { header: "price_value_in_cents", value: (i) => i.price.value_in_cents },
  { header: "price_currency", value: (i) => i.price.currency },
];

const accountColumns = <T extends { account: Account }>(): Column<T>[] => [
  { header: "account_id", value: (i) => i.account.id },
  { header: "account_slug", value: (i) => i.account.slug, inTable: true },
  { header: "account_name", value: (i) => i.account.name },
  { header: "account_partner", value: (i) => i.account.partner },
  { header: "account_profile_image_url", value: (i) => i.account.profile_image_url },
  { header: "account_cover_image_url", value: (i) => i.account.cover_image_url },
];

/** Every field of an event, nested objects flattened; the table shows the ones marked. */
// Column tables of one shape (the duplicates tool pairs them): data, one row per field.
export const EVENT_COLUMNS: Column<Event>[] = [
  { header: "id", value: (e) => e.id, inTable: true },
  { header: "slug", value: (e) => e.slug },
  { header: "name", value: (e) => e.name, inTable: true },
  { header: "scheduled_at", value: (e) => e.scheduled_at, inTable: true },
  { header: "duration_seconds", value: (e) => e.duration_seconds },
  { header: "live_at", value: (e) => e.live_at },
  { header: "completed_at", value: (e) => e.completed_at },
  { header: "canceled_at", value: (e) => e.canceled_at, inTable: true },
  { header: "offer_replay_purchase", value: (e) => e.offer_replay_purchase },
  { header: "description", value: (e) => e.description },
  { header: "cover_url", value: (e) => e.cover_url },
  ...priceColumns<Event>(),
  ...accountColumns<Event>(),
];

export const GUIDE_COLUMNS: Column<Guide>[] = [
  { header: "id", value: (g) => g.id, inTable: true },
  { header: "slug", value: (g) => g.slug },
  { header: "name", value: (g) => g.name, inTable: true },
  { header: "published_at", value: (g) => g.published_at, inTable: true },
  { header: "description", value: (g) => g.description },
  { header: "cover_url", value: (g) => g.cover_url },
  ...priceColumns<Guide>(),
  ...accountColumns<Guide>(),
];

/** A calendar feed; `url` and `webcal_url` only after create and rotate (the secret URL, shown once). */
export const CALENDAR_FEED_COLUMNS: Column<CalendarFeed & Partial<Pick<CalendarFeedWithUrl, "url" | "webcal_url">>>[] =
  [
    { header: "id", value: (f) => f.id, inTable: true },
    { header: "name", value: (f) => f.name, inTable: true },
    { header: "created_at", value: (f) => f.created_at, inTable: true },
    { header: "last_fetched_at", value: (f) => f.last_fetched_at, inTable: true },
    { header: "url", value: (f) => f.url ?? null, inTable: true },
    { header: "webcal_url", value: (f) => f.webcal_url ?? null },
  ];
