import { wireEvent } from "@community/domain/testing";
import { type EventRow, toEvent } from "./events.mapper";

const account = {
  id: "acc_1",
  slug: "jane",
  name: "Jane",
  partner: true,
  profileImageUrl: null,
  coverImageUrl: "https://img.example.com/c.png",
};

const row = (overrides: Partial<EventRow> = {}): EventRow => ({
  id: "ev_1",
  slug: "spring-run",
  name: "Spring run",
  description: null,
  coverUrl: null,
  durationSeconds: 3600,
  scheduledAt: new Date("2026-03-01T18:30:00Z"),
  liveAt: null,
  completedAt: null,
  canceledAt: null,
  offerReplayPurchase: false,
  priceInCents: 1999,
  currency: "USD",
  account,
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
        scheduledAt: new Date("2026-03-01T20:30:00.999+02:00"),
        liveAt: new Date("2026-03-01T18:31:00.5Z"),
        completedAt: new Date(Date.UTC(2026, 2, 1, 19, 0, 0)),
        canceledAt: new Date("2026-12-31T23:59:59Z"),
      }),
    );
    expect(event.scheduled_at).toBe("2026-03-01T18:30:00Z");
    expect(event.live_at).toBe("2026-03-01T18:31:00Z");
    expect(event.completed_at).toBe("2026-03-01T19:00:00Z");
    expect(event.canceled_at).toBe("2026-12-31T23:59:59Z");
  });

  it.each([
    [1999, "JPY", 1999],
    [1999, "BHD", 1.999],
    [0, "EUR", 0],
  ])("prices %i %s as %d", (cents, currency, value) => {
    expect(toEvent(row({ priceInCents: cents, currency })).price).toEqual({ value, value_in_cents: cents, currency });
  });

  it("trims a blank-padded currency column", () => {
    expect(toEvent(row({ currency: "EUR " })).price.currency).toBe("EUR");
  });
});
