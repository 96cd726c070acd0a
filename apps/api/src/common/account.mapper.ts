import { type Account, type Price, priceFromMinorUnits } from "@community/domain";

/** The account columns every list item carries, as the repositories read them. */
export interface AccountRow {
  id: string;
  slug: string;
  name: string;
  partner: boolean;
  profileImageUrl: string | null;
  coverImageUrl: string | null;
}

/** The price columns shared by events and guides: integer minor units and an ISO 4217 code. */
export interface PriceColumns {
  priceInCents: number;
  currency: string;
}

export function toAccount(row: AccountRow): Account {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    partner: row.partner,
    profile_image_url: row.profileImageUrl,
    cover_image_url: row.coverImageUrl,
  };
}

export function toPrice(row: PriceColumns): Price {
  // CHAR(3) columns come back blank-padded from some drivers; codes never contain spaces.
  return priceFromMinorUnits(row.priceInCents, row.currency.trim());
}

/** Prisma `select` of the account relation, kept beside the row type it produces. */
export const ACCOUNT_SELECT = {
  id: true,
  slug: true,
  name: true,
  partner: true,
  profileImageUrl: true,
  coverImageUrl: true,
} as const;
