import type { AccountRow } from "./account.mapper";

/** The account columns of a list query (alias `a`), prefixed so they never clash with the item's. */
export const ACCOUNT_COLUMNS =
  "a.id AS account_id, a.slug AS account_slug, a.name AS account_name, a.partner AS account_partner, " +
  "a.profile_image_url AS account_profile_image_url, a.cover_image_url AS account_cover_image_url";

/** The account of a list query's row, as the mappers take it. */
export function accountOf(row: Record<string, unknown>): AccountRow {
  return {
    id: row.account_id as string,
    slug: row.account_slug as string,
    name: row.account_name as string,
    partner: row.account_partner as boolean,
    profileImageUrl: row.account_profile_image_url as string | null,
    coverImageUrl: row.account_cover_image_url as string | null,
  };
}
