import { type GuideRow, toGuide } from "./guides.list";

const row = (overrides: Partial<GuideRow> = {}): GuideRow => ({
  id: "gd_1",
  slug: "first-5k",
  name: "Your first 5k",
  description: "From the couch to 5 km",
  cover_url: "https://img.example.com/5k.png",
  published_at: "2026-02-01 09:00:00",
  price_in_cents: 0,
  currency: "EUR",
  account_id: "acc_1",
  account_slug: "jane",
  account_name: "Jane",
  account_partner: false,
  account_profile_image_url: null,
  account_cover_image_url: null,
  ...overrides,
});

describe(toGuide.name, () => {
  it("maps every field of the contract", () => {
    expect(toGuide(row())).toEqual({
      id: "gd_1",
      slug: "first-5k",
      published_at: "2026-02-01T09:00:00Z",
      name: "Your first 5k",
      description: "From the couch to 5 km",
      cover_url: "https://img.example.com/5k.png",
      price: { value: 0, value_in_cents: 0, currency: "EUR" },
      account: {
        id: "acc_1",
        slug: "jane",
        name: "Jane",
        partner: false,
        profile_image_url: null,
        cover_image_url: null,
      },
    });
  });

  it("keeps a draft's published_at null", () => {
    expect(toGuide(row({ published_at: null })).published_at).toBeNull();
  });

  it("prices in the currency's minor unit (KWD has 3 digits)", () => {
    expect(toGuide(row({ price_in_cents: 12345, currency: "KWD" })).price.value).toBe(12.345);
  });
});
