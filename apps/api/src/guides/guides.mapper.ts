import { formatNullableTimestamp, type Guide } from "@community/domain";
import { type AccountRow, type PriceColumns, toAccount, toPrice } from "../common/account.mapper";

export interface GuideRow extends PriceColumns {
  id: string;
  slug: string;
  name: string;
  description: string | null;
  coverUrl: string | null;
  publishedAt: Date | null;
  account: AccountRow;
}

/** Database row -> the contract's Guide; a draft keeps `published_at: null`. */
export function toGuide(row: GuideRow): Guide {
  return {
    id: row.id,
    slug: row.slug,
    published_at: formatNullableTimestamp(row.publishedAt),
    name: row.name,
    description: row.description,
    cover_url: row.coverUrl,
    price: toPrice(row),
    account: toAccount(row.account),
  };
}
