import { type Account, type Price, priceFromMinorUnits } from "@community/domain";

/** The account columns of a list query (alias `a`), prefixed so they never clash with the item's. */
export const ACCOUNT_COLUMNS =
  "a.id AS account_id, a.slug AS account_slug, a.name AS account_name, a.partner AS account_partner, " +
  "a.profile_image_url AS account_profile_image_url, a.cover_image_url AS account_cover_image_url";

/** The row ACCOUNT_COLUMNS select, as node-postgres returns it. */
export interface AccountColumns {
  account_id: string;
  account_slug: string;
  account_name: string;
  account_partner: boolean;
  account_profile_image_url: string | null;
  account_cover_image_url: string | null;
}

/** The price columns shared by events and guides: integer minor units and an ISO 4217 code. */
export interface PriceColumns {
  price_in_cents: number;
  currency: string;
}

export function toAccount(row: AccountColumns): Account {
  return {
    id: row.account_id,
    slug: row.account_slug,
    name: row.account_name,
    partner: row.account_partner,
    profile_image_url: row.account_profile_image_url,
    cover_image_url: row.account_cover_image_url,
  };
}

export function toPrice(row: PriceColumns): Price {
  // CHAR(3) columns come back blank-padded from some drivers; codes never contain spaces.
  return priceFromMinorUnits(row.price_in_cents, row.currency.trim());
}
