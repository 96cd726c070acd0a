import { EVENTS, type Event } from "@community/domain";
import {
  ACCOUNT_COLUMNS,
  type AccountColumns,
  fromNullableUtcText,
  fromUtcText,
  type IntegerColumn,
  type PriceColumns,
  toAccount,
  toInteger,
  toPrice,
  utcTextColumn,
} from "./item-columns";
import { listSql } from "./team-list";

/** The row EVENTS_LIST's columns select, as the driver returns it. */
export interface EventRow extends PriceColumns, AccountColumns {
  id: string;
  slug: string;
  name: string;
  description: string | null;
  cover_url: string | null;
  duration_seconds: IntegerColumn;
  /** Timestamps as utcTextColumn selects them: `2026-03-01 18:30:00`. */
  scheduled_at: string;
  live_at: string | null;
  completed_at: string | null;
  canceled_at: string | null;
  offer_replay_purchase: boolean;
}

/** Database row -> the contract's Event: UTC second-precision timestamps, price in major units. */
export function toEvent(row: EventRow): Event {
  return {
    id: row.id,
    slug: row.slug,
    duration_seconds: toInteger(row.duration_seconds),
    scheduled_at: fromUtcText(row.scheduled_at),
    live_at: fromNullableUtcText(row.live_at),
    completed_at: fromNullableUtcText(row.completed_at),
    canceled_at: fromNullableUtcText(row.canceled_at),
    offer_replay_purchase: row.offer_replay_purchase,
    name: row.name,
    description: row.description,
    cover_url: row.cover_url,
    price: toPrice(row),
    account: toAccount(row),
  };
}

/**
 * An event's status from its data alone (never the clock), as one expression: the expression
 * index events_team_status_idx (team_id, this, scheduled_at DESC, id) serves a filter on one status.
 */
export const EVENT_STATUS_SQL =
  "(CASE WHEN t.canceled_at IS NOT NULL THEN 'canceled' WHEN t.completed_at IS NOT NULL THEN 'completed' " +
  "WHEN t.live_at IS NOT NULL THEN 'live' ELSE 'scheduled' END)";

/** Newest scheduled first, ties by id; served by events_team_list_idx (team_id, scheduled_at DESC, id). */
export const EVENTS_LIST = listSql<EventRow, typeof EVENTS>(EVENTS, {
  filters: {
    status: {
      scheduled: `${EVENT_STATUS_SQL} = 'scheduled'`,
      live: `${EVENT_STATUS_SQL} = 'live'`,
      completed: `${EVENT_STATUS_SQL} = 'completed'`,
      canceled: `${EVENT_STATUS_SQL} = 'canceled'`,
    },
    window: { column: "t.scheduled_at" },
  },
  sortKey: "t.scheduled_at",
  statusSql: EVENT_STATUS_SQL,
  columns:
    `t.id, t.slug, t.name, t.description, t.cover_url, t.duration_seconds, ${utcTextColumn("scheduled_at")}, ` +
    `${utcTextColumn("live_at")}, ${utcTextColumn("completed_at")}, ${utcTextColumn("canceled_at")}, ` +
    `t.offer_replay_purchase, t.price_in_cents, t.currency, ${ACCOUNT_COLUMNS}`,
  toItem: toEvent,
});
