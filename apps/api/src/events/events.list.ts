import { ACCOUNT_COLUMNS, accountOf } from "../common/account-columns";
import type { TeamListSpec } from "../common/team-list-reader";
import type { EventRow } from "./events.mapper";

/** Served by events_team_list_idx (team_id, scheduled_at DESC, id). */
export const EVENTS_LIST: TeamListSpec = {
  list: "events",
  sortKey: "t.scheduled_at",
  columns:
    "t.id, t.slug, t.name, t.description, t.cover_url, t.duration_seconds, t.scheduled_at, t.live_at, " +
    `t.completed_at, t.canceled_at, t.offer_replay_purchase, t.price_in_cents, t.currency, ${ACCOUNT_COLUMNS}`,
};

export function toEventRow(row: Record<string, unknown>): EventRow {
  return {
    id: row.id as string,
    slug: row.slug as string,
    name: row.name as string,
    description: row.description as string | null,
    coverUrl: row.cover_url as string | null,
    durationSeconds: row.duration_seconds as number,
    scheduledAt: row.scheduled_at as Date,
    liveAt: row.live_at as Date | null,
    completedAt: row.completed_at as Date | null,
    canceledAt: row.canceled_at as Date | null,
    offerReplayPurchase: row.offer_replay_purchase as boolean,
    priceInCents: row.price_in_cents as number,
    currency: row.currency as string,
    account: accountOf(row),
  };
}
