import { type Event, formatNullableTimestamp, formatTimestamp } from "@community/domain";
import { type AccountRow, type PriceColumns, toAccount, toPrice } from "../common/account.mapper";

export interface EventRow extends PriceColumns {
  id: string;
  slug: string;
  name: string;
  description: string | null;
  coverUrl: string | null;
  durationSeconds: number;
  scheduledAt: Date;
  liveAt: Date | null;
  completedAt: Date | null;
  canceledAt: Date | null;
  offerReplayPurchase: boolean;
  account: AccountRow;
}

/** Database row -> the contract's Event: UTC second-precision timestamps, price in major units. */
export function toEvent(row: EventRow): Event {
  return {
    id: row.id,
    slug: row.slug,
    duration_seconds: row.durationSeconds,
    scheduled_at: formatTimestamp(row.scheduledAt),
    live_at: formatNullableTimestamp(row.liveAt),
    completed_at: formatNullableTimestamp(row.completedAt),
    canceled_at: formatNullableTimestamp(row.canceledAt),
    offer_replay_purchase: row.offerReplayPurchase,
    name: row.name,
    description: row.description,
    cover_url: row.coverUrl,
    price: toPrice(row),
    account: toAccount(row.account),
  };
}
