import { ACCOUNT_COLUMNS, accountOf } from "../common/account-columns";
import type { TeamListSpec } from "../common/team-list-reader";
import type { GuideRow } from "./guides.mapper";

/**
 * Drafts (no published_at) first, then newest published, as one key; served by the expression
 * index guides_team_list_key_idx (team_id, COALESCE(published_at, 'infinity') DESC, id).
 */
export const GUIDES_LIST: TeamListSpec = {
  list: "guides",
  sortKey: "COALESCE(t.published_at, 'infinity'::timestamptz)",
  columns: `t.id, t.slug, t.name, t.description, t.cover_url, t.published_at, t.price_in_cents, t.currency, ${ACCOUNT_COLUMNS}`,
};

export function toGuideRow(row: Record<string, unknown>): GuideRow {
  return {
    id: row.id as string,
    slug: row.slug as string,
    name: row.name as string,
    description: row.description as string | null,
    coverUrl: row.cover_url as string | null,
    publishedAt: row.published_at as Date | null,
    priceInCents: row.price_in_cents as number,
    currency: row.currency as string,
    account: accountOf(row),
  };
}
