/**
 * The wire types of the API. Field names are the JSON names of the source specification
 * (snake_case), so the same type describes what the api writes and what a client reads.
 */

/** An ISO 8601 UTC timestamp with second precision: `YYYY-MM-DDTHH:MM:SSZ`. */
export type Timestamp = string;

/** An ISO 4217 alphabetic currency code, upper case (`USD`, `JPY`, `BHD`). */
export type CurrencyCode = string;

export interface Price {
  /** `value_in_cents / 10^d`, d being the ISO 4217 minor-unit digits of the currency. */
  value: number;
  /** The amount in the currency's minor unit; an integer `>= 0`. */
  value_in_cents: number;
  currency: CurrencyCode;
}

export interface Account {
  id: string;
  slug: string;
  name: string;
  partner: boolean;
  profile_image_url: string | null;
  cover_image_url: string | null;
}

export interface Event {
  id: string;
  slug: string;
  duration_seconds: number;
  scheduled_at: Timestamp;
  live_at: Timestamp | null;
  completed_at: Timestamp | null;
  canceled_at: Timestamp | null;
  offer_replay_purchase: boolean;
  name: string;
  description: string | null;
  cover_url: string | null;
  price: Price;
  account: Account;
}

export interface Guide {
  id: string;
  slug: string;
  /** `null` while the guide is a draft. */
  published_at: Timestamp | null;
  name: string;
  description: string | null;
  cover_url: string | null;
  price: Price;
  account: Account;
}
