import { type Account, type Price, priceFromMinorUnits, type Timestamp } from "@community/domain";

/**
 * A timestamptz column as the text of its UTC time (`2026-03-01 18:30:00`, with a fraction when
 * stored with one), aliased to the column's name: the mappers turn it into the contract's
 * timestamp with two slices, where node-postgres would build a Date per value (a regex match and
 * its strings) for formatTimestamp to print again. The text is the same whatever the session's
 * TimeZone; node-postgres itself needs DateStyle ISO.
 */
export function utcTextColumn(column: string): string {
  return `(t.${column} AT TIME ZONE 'UTC')::text AS ${column}`;
}

/** `YYYY-MM-DD HH:MM:SS` and an optional fraction: ISO DateStyle, years 0001-9999 AD. */
const UTC_TEXT = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d+)?$/;

/**
 * The contract's timestamp (UTC, second precision, fraction truncated) of a utcTextColumn value;
 * as formatTimestamp, a RangeError for what the format cannot express (years past 9999, or BC
 * other than 1 BC, which is year 0000).
 */
export function fromUtcText(text: string): Timestamp {
  if (UTC_TEXT.test(text)) return `${text.slice(0, 10)}T${text.slice(11, 19)}Z`;
  // PostgreSQL writes 1 BC as year 0001 with a BC suffix; ISO 8601 (and Date) call it year 0000.
  if (text.startsWith("0001-") && text.endsWith(" BC") && UTC_TEXT.test(text.slice(0, -3)))
    return `0000${text.slice(4, 10)}T${text.slice(11, 19)}Z`;
  throw new RangeError(`${text} is outside the years 0000-9999 that a timestamp can express`);
}

export function fromNullableUtcText(text: string | null): Timestamp | null {
  return text === null ? null : fromUtcText(text);
}

/**
 * An integer column as a driver may return it: a number (int2/int4), a bigint (int8 through
 * Prisma), a string (int8 or numeric through node-postgres) or a decimal object (numeric through
 * Prisma). Declared so because a routine migration (`ALTER COLUMN ... TYPE bigint`) changes which
 * one arrives, and the contract's integer must not change with it.
 */
export type IntegerColumn = number | bigint | string | { toNumber(): number };

/** The contract's integer of an IntegerColumn value; a RangeError for what is not a safe integer. */
export function toInteger(value: IntegerColumn): number {
  const number =
    typeof value === "number"
      ? value
      : typeof value === "bigint" || typeof value === "string"
        ? Number(value)
        : value.toNumber();
  if (!Number.isSafeInteger(number))
    throw new RangeError(`${String(value)} is not an integer that JSON carries exactly`);
  return number;
}

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
  price_in_cents: IntegerColumn;
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
  return priceFromMinorUnits(toInteger(row.price_in_cents), row.currency.trim());
}
