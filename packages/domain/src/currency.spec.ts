import currencyCodes from "currency-codes";
import { isCurrencyCode, minorUnitDigits, priceFromMinorUnits, UnknownCurrencyError } from "./currency";

describe("minorUnitDigits", () => {
  it.each([
    ["USD", 2],
    ["EUR", 2],
    ["JPY", 0],
    ["KRW", 0],
    ["BHD", 3],
    ["KWD", 3],
    ["CLF", 4],
  ])("gives the ISO 4217 digits of %s: %i", (code, digits) => {
    expect(minorUnitDigits(code)).toBe(digits);
  });

  it("agrees with currency-codes on every code it lists", () => {
    for (const code of currencyCodes.codes()) {
      expect(isCurrencyCode(code)).toBe(true);
      expect(minorUnitDigits(code)).toBe(currencyCodes.code(code)?.digits);
    }
  });

  it.each(["usd", "XYZ", "US", "USDD", "", "€", "__proto__", "constructor"])("rejects %j as unknown", (code) => {
    expect(() => minorUnitDigits(code)).toThrow(UnknownCurrencyError);
    expect(isCurrencyCode(code)).toBe(false);
  });
});

describe("priceFromMinorUnits", () => {
  it("divides by 10^digits of the currency", () => {
    expect(priceFromMinorUnits(1999, "USD")).toEqual({ value: 19.99, value_in_cents: 1999, currency: "USD" });
    expect(priceFromMinorUnits(1999, "JPY")).toEqual({ value: 1999, value_in_cents: 1999, currency: "JPY" });
    expect(priceFromMinorUnits(1999, "BHD")).toEqual({ value: 1.999, value_in_cents: 1999, currency: "BHD" });
  });

  it("gives zero for a free item", () => {
    expect(priceFromMinorUnits(0, "EUR")).toEqual({ value: 0, value_in_cents: 0, currency: "EUR" });
  });

  it("is exact where a float sum would drift (1 cent, 10 cents, 0.29 USD)", () => {
    expect(priceFromMinorUnits(1, "USD").value).toBe(0.01);
    expect(priceFromMinorUnits(10, "USD").value).toBe(0.1);
    expect(priceFromMinorUnits(29, "USD").value).toBe(0.29);
    expect(JSON.stringify(priceFromMinorUnits(110, "USD"))).toContain('"value":1.1');
  });

  it.each([-1, 1.5, Number.NaN])("rejects %p minor units", (cents) => {
    expect(() => priceFromMinorUnits(cents, "USD")).toThrow(RangeError);
  });

  it("rejects an unknown currency", () => {
    expect(() => priceFromMinorUnits(100, "ABC")).toThrow(UnknownCurrencyError);
  });
});
