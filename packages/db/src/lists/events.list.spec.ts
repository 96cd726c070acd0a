import { wireEvent } from "@community/domain/testing";
import { type EventRow, toEvent } from "./events.list";

const row = (overrides: Partial<EventRow> = {}): EventRow => ({
  id: "ev_1",
  slug: "spring-run",
  name: "Spring run",
  description: null,
  cover_url: null,
  duration_seconds: 3600,
  scheduled_at: "2026-03-01 18:30:00",
  live_at: null,
  completed_at: null,
  canceled_at: null,
  offer_replay_purchase: false,
  price_in_cents: 1999,
  currency: "USD",
  account_id: "acc_1",
  account_slug: "jane",
  account_name: "Jane",
  account_partner: true,
  account_profile_image_url: null,
  account_cover_image_url: "https://img.example.com/c.png",
  ...overrides,
});

describe(toEvent.name, () => {
  it("maps every field of the contract, snake_case, with nulls kept", () => {
    const jane = wireEvent().account;
    expect(toEvent(row())).toEqual(
      wireEvent({ account: { ...jane, cover_image_url: "https://img.example.com/c.png" } }),
    );
  });

  it("writes every timestamp in UTC with second precision", () => {
    const event = toEvent(
      row({
        scheduled_at: "2026-03-01 18:30:00.999",
        live_at: "2026-03-01 18:31:00.5",
        completed_at: "2026-03-01 19:00:00",
        canceled_at: "2026-12-31 23:59:59",
      }),
    );
    expect(event.scheduled_at).toBe("2026-03-01T18:30:00Z");
    expect(event.live_at).toBe("2026-03-01T18:31:00Z");
    expect(event.completed_at).toBe("2026-03-01T19:00:00Z");
    expect(event.canceled_at).toBe("2026-12-31T23:59:59Z");
  });

  it("refuses what the contract's format cannot express, as formatTimestamp does", () => {
    expect(toEvent(row({ scheduled_at: "0001-01-01 00:00:00 BC" })).scheduled_at).toBe("0000-01-01T00:00:00Z");
    for (const text of ["10000-01-01 00:00:00", "0002-01-01 00:00:00 BC", "infinity", "2026-03-01T18:30:00Z"])
      expect(() => toEvent(row({ scheduled_at: text }))).toThrow(RangeError);
  });

  it.each([
    [1999, "JPY", 1999],
    [1999, "BHD", 1.999],
    [0, "EUR", 0],
  ])("prices %i %s as %d", (cents, currency, value) => {
    expect(toEvent(row({ price_in_cents: cents, currency })).price).toEqual({ value, value_in_cents: cents, currency });
  });

  it("trims a blank-padded currency column", () => {
    expect(toEvent(row({ currency: "EUR " })).price.currency).toBe("EUR");
  });
});

describe("integer columns of any width or numeric type", () => {
  it.each([
    ["int4 (a number)", 2700],
    ["int8 through Prisma (a bigint)", 2700n],
    ["int8 or numeric through node-postgres (a string)", "2700"],
    ["numeric through Prisma (a decimal)", { toNumber: () => 2700 }],
  ])("gives duration_seconds and the price as JSON numbers from %s", (_kind, value) => {
    const event = toEvent(row({ duration_seconds: value, price_in_cents: typeof value === "number" ? 1999 : 1999n }));
    expect(event.duration_seconds).toBe(2700);
    expect(event.price).toEqual({ value: 19.99, value_in_cents: 1999, currency: "USD" });
    expect(JSON.stringify(event)).toContain('"duration_seconds":2700,');
  });

  it("refuses a value that JSON cannot carry exactly rather than rounding it", () => {
    expect(() => toEvent(row({ duration_seconds: 2n ** 53n + 1n }))).toThrow(RangeError);
  });
});
