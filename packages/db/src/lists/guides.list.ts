import { GUIDES, type Guide } from "@community/domain";
import {
  ACCOUNT_COLUMNS,
  type AccountColumns,
  fromNullableUtcText,
  type PriceColumns,
  toAccount,
  toPrice,
  utcTextColumn,
} from "./item-columns";
import { listSql } from "./team-list";

/** The row GUIDES_LIST's columns select, as node-postgres returns it. */
export interface GuideRow extends PriceColumns, AccountColumns {
  id: string;
  slug: string;
  name: string;
  description: string | null;
  cover_url: string | null;
  /** As utcTextColumn selects it: `2026-03-01 18:30:00`. */
  published_at: string | null;
}

/** Database row -> the contract's Guide; a draft keeps `published_at: null`. */
export function toGuide(row: GuideRow): Guide {
  return {
    id: row.id,
    slug: row.slug,
    published_at: fromNullableUtcText(row.published_at),
    name: row.name,
    description: row.description,
    cover_url: row.cover_url,
    price: toPrice(row),
    account: toAccount(row),
  };
}

/**
 * Drafts (no published_at) first, then newest published, ties by id, as one key; served by the
 * expression index guides_team_list_key_idx (team_id, COALESCE(published_at, 'infinity') DESC, id).
 */
export const GUIDES_LIST = listSql<GuideRow, typeof GUIDES>(GUIDES, {
  filters: {
    // Written over the sort key, so that both are ranges of guides_team_list_key_idx.
    status: {
      draft: "COALESCE(t.published_at, 'infinity'::timestamptz) = 'infinity'::timestamptz",
      published: "COALESCE(t.published_at, 'infinity'::timestamptz) < 'infinity'::timestamptz",
    },
    // Over the sort key (an index range); drafts, whose key is infinity, never match a window.
    window: {
      column: "COALESCE(t.published_at, 'infinity'::timestamptz)",
      requires: "t.published_at IS NOT NULL",
    },
  },
  sortKey: "COALESCE(t.published_at, 'infinity'::timestamptz)",
  statusSql:
    "(CASE WHEN COALESCE(t.published_at, 'infinity'::timestamptz) = 'infinity'::timestamptz THEN 'draft' ELSE 'published' END)",
  columns: `t.id, t.slug, t.name, t.description, t.cover_url, ${utcTextColumn("published_at")}, t.price_in_cents, t.currency, ${ACCOUNT_COLUMNS}`,
  toItem: toGuide,
});
