import currencyCodes from "currency-codes";
import type { CurrencyCode, Price } from "./entities";

export class UnknownCurrencyError extends Error {
  constructor(readonly code: string) {
    super(`"${code}" is not an ISO 4217 alphabetic currency code`);
    this.name = "UnknownCurrencyError";
  }
}

/**
 * Minor-unit digits by code, read once from currency-codes: its `code()` is a linear search over
 * the whole list, and every item of every page has a price.
 */
const MINOR_UNIT_DIGITS: ReadonlyMap<string, number> = new Map(
  currencyCodes
    .codes()
    .filter((code) => /^[A-Z]{3}$/.test(code))
    .map((code) => [code, currencyCodes.code(code)?.digits ?? 0]),
);

/** True for an upper-case ISO 4217 alphabetic code of a currency in the current list. */
export function isCurrencyCode(code: string): code is CurrencyCode {
  return MINOR_UNIT_DIGITS.has(code);
}

/** ISO 4217 minor-unit digits: USD 2, JPY 0, BHD 3. */
export function minorUnitDigits(code: CurrencyCode): number {
  const digits = MINOR_UNIT_DIGITS.get(code);
  if (digits === undefined) {
    throw new UnknownCurrencyError(code);
  }
  return digits;
}

/**
 * Builds the Price of an amount held in minor units. Integer division by a power of ten is
 * correctly rounded in IEEE 754, so 1999 USD gives exactly the double that "19.99" parses to.
 */
export function priceFromMinorUnits(valueInCents: number, currency: CurrencyCode): Price {
  if (!Number.isSafeInteger(valueInCents) || valueInCents < 0) {
    throw new RangeError(`value_in_cents must be a non-negative integer, got ${valueInCents}`);
  }
  return {
    value: valueInCents / 10 ** minorUnitDigits(currency),
    value_in_cents: valueInCents,
    currency,
  };
}
