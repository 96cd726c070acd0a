import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { DOORKEEPER_GENERATION, ENTRY_OVERHEAD_BYTES, PageBody, PageCache } from "./page-cache";

/** A JSON body of about `bytes` bytes that compresses well, as list pages do. */
function body(bytes: number, seed = 0): PageBody {
  const items = Array.from({ length: Math.ceil(bytes / 60) }, (_, i) => ({ id: `ev_${seed}_${i}`, name: "Event" }));
  return PageBody.of({ guides: items, meta: { pagination: { current_page: 1, per_page: 100, total_pages: 1 } } });
}

/** What the cache counts for a page: its compact body and the per-entry overhead. */
function cost(page: PageBody): number {
  return page.compact().size + ENTRY_OVERHEAD_BYTES;
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

  it("holds exactly the bytes it counts once kept: no kept form shares a larger block of memory", () => {
    // Buffer.from(string) under 4 KB slices Node's shared 8 KB pool, and a zlib result is a
    // slice of its 16 KB output chunk: a kept slice would keep the whole block alive, so a
    // cache of small pages would hold several times its budget.
    const cache = new PageCache(1_000_000);
    for (const bytes of [300, 1_500, 3_000, 20_000]) {
      const before = body(bytes, bytes);
      before.encoded("gzip"); // a form made before the cache keeps the body
      const key = PageCache.key("team_a", "events", String(bytes), 1, 100);
      cache.set(key, { body: before, totalItems: 1 });
      const kept = cache.get(key)?.body as PageBody;
      kept.encoded("br");
      kept.encoded("gzip");
      expect(kept.size).toBe(cost(before) - ENTRY_OVERHEAD_BYTES);
      if (bytes < 1_024) expect(kept.size).toBe(before.json.length);
      for (const coding of ["identity", "gzip", "br"] as const) {
        const form = kept.encoded(coding).bytes;
        expect(form.buffer.byteLength).toBe(form.length);
      }
      expect(kept.size).toBe(
        cost(before) - ENTRY_OVERHEAD_BYTES + (before.json.length < 1_024 ? 0 : before.json.length),
      );
    }
  });

  it("is kept as its br form only: the same JSON to every client, in a tenth of the bytes", () => {
    const page = body(20_000);
    const identity = Buffer.from(page.json);
    const kept = page.compact();
    expect(kept.size).toBe(page.encoded("br").bytes.length);
    expect(kept.size).toBeLessThan(identity.length / 10);
    expect(kept.encoded("br").bytes).toBe(kept.encoded("br").bytes);
    expect(brotliDecompressSync(kept.encoded("br").bytes)).toEqual(identity);
    expect(gunzipSync(kept.encoded("gzip").bytes)).toEqual(identity);
    // The gzip form, once made, is held and counted.
    expect(kept.size).toBe(kept.encoded("br").bytes.length + kept.encoded("gzip").bytes.length);
    // The page it came from still holds its JSON, for the response in flight.
    expect(page.json).toEqual(identity);
  });

  it("keeps its JSON once a client asks for it in identity: decompressed once, not on every hit, and counted", () => {
    const page = body(20_000);
    const identity = Buffer.from(page.json);
    const cache = new PageCache(1_000_000);
    const key = PageCache.key("team_a", "events", "1", 1, 100);
    cache.set(key, { body: page, totalItems: 1 });
    const kept = cache.get(key)?.body as PageBody;
    const held = cache.stats().bytes;
    const first = kept.encoded("identity");
    expect(first).toEqual({ bytes: identity, coding: "identity" });
    expect(kept.size).toBe(kept.encoded("br").bytes.length + identity.length);
    expect(cache.stats().bytes).toBe(held + identity.length);
    // The next hits send the same bytes, decompressing nothing.
    const json = jest.spyOn(PageBody.prototype, "json", "get");
    try {
      expect(kept.encoded("identity").bytes).toBe(first.bytes);
      expect(json).not.toHaveBeenCalled();
    } finally {
      json.mockRestore();
    }
    expect(cache.stats().bytes).toBe(held + identity.length);
    // A body no cache keeps holds nothing more than it has.
    const loose = body(20_000).compact();
    expect(loose.encoded("identity").bytes).toEqual(identity);
  });

  it("measures what it would send (for HEAD) as encoded() sends it, a kept page's JSON without decompressing it", () => {
    const page = body(20_000);
    const kept = page.compact();
    const json = jest.spyOn(PageBody.prototype, "json", "get");
    try {
      expect(kept.measured("identity")).toEqual({ length: page.json.length, coding: "identity" });
      expect(kept.measured("br")).toEqual({ length: page.encoded("br").bytes.length, coding: "br" });
      json.mockClear();
      kept.measured("identity");
      kept.measured("br");
      expect(json).not.toHaveBeenCalled();
    } finally {
      json.mockRestore();
    }
    expect(kept.measured("gzip")).toEqual({ length: kept.encoded("gzip").bytes.length, coding: "gzip" });
    const small = PageBody.of({ guides: [], meta: { pagination: { per_page: 1, next_cursor: null } } });
    expect(small.measured("br")).toEqual({ length: small.json.length, coding: "identity" });
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
    const kept = cache.get(PageCache.key("team_a", "events", "7", 1, 100));
    expect(kept?.totalItems).toBe(40);
    expect(kept?.body.json).toEqual(page.body.json);
    expect(cache.get(PageCache.key("team_a", "events", "8", 1, 100))).toBeUndefined();
    expect(cache.get(PageCache.key("team_a", "events", "7", 2, 100))).toBeUndefined();
    expect(cache.get(PageCache.key("team_a", "events", "7", 1, 10))).toBeUndefined();
    expect(cache.get(PageCache.key("team_b", "events", "7", 1, 100))).toBeUndefined();
    expect(cache.get(PageCache.key("team_a", "guides", "7", 1, 100))).toBeUndefined();
    expect(cache.get(PageCache.key("team_a:events", "events", "7", 1, 100))).toBeUndefined();
    expect(cache.stats()).toMatchObject({ hits: 1, misses: 6, entries: 1 });
  });

  it("never holds more bytes than its budget, compressed forms included, dropping the least recently used", () => {
    const budget = 6 * cost(body(8_000));
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
    const cache = new PageCache(Math.floor(cost(first.body) * 2.5));
    cache.set(PageCache.key("team_a", "events", "1", 1, 100), first);
    const kept = cache.get(PageCache.key("team_a", "events", "1", 1, 100))?.body as PageBody;
    cache.set(PageCache.key("team_a", "events", "2", 1, 100), { body: body(12_000, 2), totalItems: 1 });
    cache.set(PageCache.key("team_a", "events", "3", 1, 100), { body: body(12_000, 3), totalItems: 1 });
    expect(cache.get(PageCache.key("team_a", "events", "1", 1, 100))).toBeUndefined();
    const held = cache.stats().bytes;
    kept.encoded("gzip");
    expect(cache.stats().bytes).toBe(held);
  });

  it("counts a page by its compressed size: a budget under one page's JSON keeps several pages", () => {
    const pages = Array.from({ length: 4 }, (_, i) => body(20_000, i));
    const budget = pages.reduce((sum, page) => sum + cost(page), 0);
    expect(budget).toBeLessThan(pages[0]?.json.length as number);
    const cache = new PageCache(budget);
    for (const [i, page] of pages.entries()) {
      cache.set(PageCache.key("team_a", "events", String(i), 1, 100), { body: page, totalItems: 1 });
    }
    expect(cache.stats()).toMatchObject({ entries: 4, evictions: 0, bytes: budget });
    for (const [i, page] of pages.entries()) {
      expect(cache.get(PageCache.key("team_a", "events", String(i), 1, 100))?.body.json).toEqual(page.json);
    }
  });

  it("keeps nothing with a budget of 0, or a page larger than the budget", () => {
    const off = new PageCache(0);
    off.set(PageCache.key("team_a", "events", "1", 1, 100), { body: body(2_000), totalItems: 1 });
    expect(off.get(PageCache.key("team_a", "events", "1", 1, 100))).toBeUndefined();
    expect(off.stats()).toEqual({ hits: 0, misses: 0, evictions: 0, deferred: 0, bytes: 0, entries: 0 });
    const small = new PageCache(cost(body(2_000)) - 1);
    small.set(PageCache.key("team_a", "events", "1", 1, 100), { body: body(2_000), totalItems: 1 });
    expect(small.stats().entries).toBe(0);
  });

  it("tells first pages from deeper ones by the page number of the key, whatever the team id holds", () => {
    expect(PageCache.isFirstPage(PageCache.key("team_a", "events", "7", 1, 100))).toBe(true);
    expect(PageCache.isFirstPage(PageCache.key("t:1:1", "guides", "1", 1, 10))).toBe(true);
    for (const page of [2, 10, 11, 21, 100]) {
      expect(PageCache.isFirstPage(PageCache.key("team_a", "events", "1", page, 1))).toBe(false);
    }
  });
});

describe("PageCache admission (many teams)", () => {
  const deepKey = (team: string, page: number) => PageCache.key(team, "events", "1", page, 100);
  const firstKey = (team: string) => PageCache.key(team, "events", "1", 1, 100);

  it("keeps a first page from its first read, a deeper page only from its second", () => {
    const cache = new PageCache(1_000_000);
    cache.set(firstKey("team_a"), { body: body(2_000), totalItems: 300 });
    expect(cache.get(firstKey("team_a"))).toBeDefined();
    cache.set(deepKey("team_a", 2), { body: body(2_000), totalItems: 300 });
    expect(cache.get(deepKey("team_a", 2))).toBeUndefined();
    expect(cache.stats()).toMatchObject({ deferred: 1, entries: 1 });
    cache.set(deepKey("team_a", 2), { body: body(2_000), totalItems: 300 });
    expect(cache.get(deepKey("team_a", 2))).toBeDefined();
    expect(cache.stats()).toMatchObject({ deferred: 1, entries: 2 });
  });

  it("forgets a deeper page read once after two generations of other deep pages", () => {
    const cache = new PageCache(1_000_000);
    const page = { body: body(200), totalItems: 1 };
    cache.set(deepKey("team_a", 2), page);
    for (let i = 0; i < 2 * DOORKEEPER_GENERATION; i++) cache.set(deepKey(`walker_${i}`, 3), page);
    cache.set(deepKey("team_a", 2), page);
    expect(cache.get(deepKey("team_a", 2))).toBeUndefined();
    // Seen again just now: the next read keeps it.
    cache.set(deepKey("team_a", 2), page);
    expect(cache.get(deepKey("team_a", 2))).toBeDefined();
  });

  it("never lets a large team's deeper pages push out anyone's first page", () => {
    const budget = 20 * cost(body(8_000));
    const cache = new PageCache(budget);
    const teams = Array.from({ length: 12 }, (_, i) => `team_${i}`);
    for (const team of teams) cache.set(firstKey(team), { body: body(8_000, team.length), totalItems: 50 });
    const firstBytes = cache.stats().bytes;
    expect(firstBytes).toBeLessThan(budget);
    // One large team's walk, each page read twice: over ten times the budget.
    for (let page = 2; page < 2 + 250; page++) {
      for (let read = 0; read < 2; read++)
        cache.set(deepKey("large", page), { body: body(8_000, page), totalItems: 100_000 });
      expect(cache.stats().bytes).toBeLessThanOrEqual(budget);
    }
    for (const team of teams) expect(cache.get(firstKey(team))).toBeDefined();
    // The deep pages had the room the first pages left, the most recent ones kept.
    expect(cache.get(deepKey("large", 251))).toBeDefined();
    expect(cache.get(deepKey("large", 2))).toBeUndefined();
  });

  it("drops the oldest deeper page before any first page when a first page needs room", () => {
    const one = body(8_000, 1);
    const cache = new PageCache(Math.floor(cost(one) * 3.5));
    cache.set(firstKey("team_a"), { body: body(8_000, 2), totalItems: 1 });
    for (let read = 0; read < 2; read++) cache.set(deepKey("large", 2), { body: body(8_000, 3), totalItems: 1 });
    for (let read = 0; read < 2; read++) cache.set(deepKey("large", 3), { body: body(8_000, 4), totalItems: 1 });
    expect(cache.stats().entries).toBe(3);
    cache.set(firstKey("team_b"), { body: one, totalItems: 1 });
    expect(cache.get(deepKey("large", 2))).toBeUndefined();
    expect(cache.get(deepKey("large", 3))).toBeDefined();
    expect(cache.get(firstKey("team_a"))).toBeDefined();
    expect(cache.get(firstKey("team_b"))).toBeDefined();
  });
});
