import { PageCache } from "./page-cache";

describe("PageCache.key", () => {
  it("never gives two pages the same key, whatever the team id, variant or page", () => {
    const keys = [
      PageCache.key("a", "events", "5", 1, 10),
      PageCache.key("a", "events", "5", 1, 10, "7"),
      PageCache.key("a", "events", "5", 1, 10, '["cursor","",null,null]'),
      PageCache.key("a", "events", "5", 1, 10, '["filtered","&status=live"]'),
      PageCache.key("a", "events", "5", 0, 10, '["cursor","","2026-01-01 00:00:00+00","ev_1"]'),
      PageCache.key("a:events:5", "events", "7", 1, 10),
      PageCache.key("a:events:5:v7", "events", "1", 1, 10),
      PageCache.key("a", "events", "5", 1, 10, "x:1:10"),
      PageCache.key("a", "events", "5", 1, 10, "x"),
      PageCache.key("a", "guides", "5", 1, 10, "x"),
      PageCache.key("b", "events", "5", 1, 10, "x"),
    ];
    expect(new Set(keys).size).toBe(keys.length);
    // Variants hold no colon once in the key: the page and page size stay the last two fields.
    expect(PageCache.key("a", "events", "5", 1, 10, "x:1:10").split(":").slice(-2)).toEqual(["1", "10"]);
    // A walk's first page and a filtered first page count as first pages for admission; later cursor pages not.
    expect(PageCache.isFirstPage(PageCache.key("a", "events", "5", 1, 10, "x:1:10"))).toBe(true);
    expect(PageCache.isFirstPage(PageCache.key("a", "events", "5", 0, 10, "x:1:10"))).toBe(false);
  });
});
