import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { PageBody, PageCache } from "./page-cache";

/** A JSON body of about `bytes` bytes that compresses well, as list pages do. */
function body(bytes: number, seed = 0): PageBody {
  const items = Array.from({ length: Math.ceil(bytes / 60) }, (_, i) => ({ id: `ev_${seed}_${i}`, name: "Event" }));
  return PageBody.of({ guides: items, meta: { pagination: { current_page: 1, per_page: 100, total_pages: 1 } } });
}

describe(PageBody.name, () => {
  it("decodes to the same JSON in every coding, and keeps each compressed form", () => {
    const page = body(20_000);
    const gzip = page.encoded("gzip");
    const br = page.encoded("br");
    expect(gzip.coding).toBe("gzip");
    expect(br.coding).toBe("br");
    expect(gunzipSync(gzip.bytes)).toEqual(page.json);
    expect(brotliDecompressSync(br.bytes)).toEqual(page.json);
    expect(page.encoded("gzip").bytes).toBe(gzip.bytes);
    expect(page.size).toBe(page.json.length + gzip.bytes.length + br.bytes.length);
  });

  it("sends a body under 1 KB as it is, whatever the client accepts", () => {
    const page = PageBody.of({ guides: [], meta: { pagination: { current_page: 9, per_page: 10, total_pages: 1 } } });
    expect(page.encoded("br")).toEqual({ bytes: page.json, coding: "identity" });
    expect(page.encoded("gzip")).toEqual({ bytes: page.json, coding: "identity" });
    expect(page.size).toBe(page.json.length);
  });
});

describe(PageCache.name, () => {
  it("gives back what it keeps, by team, list, version, page and page size", () => {
    const cache = new PageCache(1_000_000);
    const page = { body: body(2_000), totalItems: 40 };
    cache.set(PageCache.key("team_a", "events", "7", 1, 100), page);
    expect(cache.get(PageCache.key("team_a", "events", "7", 1, 100))).toBe(page);
    expect(cache.get(PageCache.key("team_a", "events", "8", 1, 100))).toBeUndefined();
    expect(cache.get(PageCache.key("team_a", "events", "7", 2, 100))).toBeUndefined();
    expect(cache.get(PageCache.key("team_a", "events", "7", 1, 10))).toBeUndefined();
    expect(cache.get(PageCache.key("team_b", "events", "7", 1, 100))).toBeUndefined();
    expect(cache.get(PageCache.key("team_a", "guides", "7", 1, 100))).toBeUndefined();
    expect(cache.get(PageCache.key("team_a:events", "events", "7", 1, 100))).toBeUndefined();
    expect(cache.stats()).toMatchObject({ hits: 1, misses: 6, entries: 1 });
  });

  it("never holds more bytes than its budget, compressed forms included, dropping the least recently used", () => {
    const budget = 50_000;
    const cache = new PageCache(budget);
    for (let i = 0; i < 20; i++) {
      cache.set(PageCache.key("team_a", "events", String(i), 1, 100), { body: body(8_000, i), totalItems: 1 });
      expect(cache.stats().bytes).toBeLessThanOrEqual(budget);
      // Keep page 0 in use: it must outlive the others.
      cache.get(PageCache.key("team_a", "events", "0", 1, 100))?.body.encoded("br");
      cache.get(PageCache.key("team_a", "events", String(i), 1, 100))?.body.encoded("gzip");
      expect(cache.stats().bytes).toBeLessThanOrEqual(budget);
    }
    const { entries, evictions, bytes } = cache.stats();
    expect(evictions).toBeGreaterThan(0);
    expect(entries + evictions).toBe(20);
    expect(cache.get(PageCache.key("team_a", "events", "0", 1, 100))).toBeDefined();
    expect(cache.get(PageCache.key("team_a", "events", "1", 1, 100))).toBeUndefined();
    expect(bytes).toBeGreaterThan(budget / 2);
  });

  it("counts a compressed form made after eviction nowhere", () => {
    const first = { body: body(12_000, 1), totalItems: 1 };
    // Room for two pages, not three.
    const cache = new PageCache(Math.floor(first.body.size * 2.5));
    cache.set(PageCache.key("team_a", "events", "1", 1, 100), first);
    cache.set(PageCache.key("team_a", "events", "2", 1, 100), { body: body(12_000, 2), totalItems: 1 });
    cache.set(PageCache.key("team_a", "events", "3", 1, 100), { body: body(12_000, 3), totalItems: 1 });
    expect(cache.get(PageCache.key("team_a", "events", "1", 1, 100))).toBeUndefined();
    const held = cache.stats().bytes;
    first.body.encoded("gzip");
    expect(cache.stats().bytes).toBe(held);
  });

  it("keeps nothing with a budget of 0, or a page larger than the budget", () => {
    const off = new PageCache(0);
    off.set(PageCache.key("team_a", "events", "1", 1, 100), { body: body(2_000), totalItems: 1 });
    expect(off.get(PageCache.key("team_a", "events", "1", 1, 100))).toBeUndefined();
    expect(off.stats()).toEqual({ hits: 0, misses: 0, evictions: 0, bytes: 0, entries: 0 });
    const small = new PageCache(1_000);
    small.set(PageCache.key("team_a", "events", "1", 1, 100), { body: body(2_000), totalItems: 1 });
    expect(small.stats().entries).toBe(0);
  });
});
