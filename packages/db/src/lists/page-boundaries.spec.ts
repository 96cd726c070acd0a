import { type PageBoundaries, PageBoundaryCache } from "./page-boundaries";

const boundaries = (version: string, count: number, stride = 100): PageBoundaries => ({
  version,
  stride,
  keys: Array.from({ length: count }, (_, i) => `key-${i}`),
  ids: Array.from({ length: count }, (_, i) => `id-${i}`),
});

describe(PageBoundaryCache.name, () => {
  it("seeks to the boundary at or before the offset and skips the rest", async () => {
    const cache = new PageBoundaryCache(async () => boundaries("7", 30), { maxBoundaries: 1_000 });
    expect(cache.seekFor("team", 1_250)).toBeUndefined();
    await cache.refresh("team");
    expect(cache.seekFor("team", 1_250)).toEqual({ key: "key-12", id: "id-12", version: "7", skip: 50 });
    expect(cache.seekFor("team", 1_200)).toEqual({ key: "key-12", id: "id-12", version: "7", skip: 0 });
    // past the last boundary read: no seek (the list may have grown since)
    expect(cache.seekFor("team", 3_000)).toBeUndefined();
    expect(cache.isCurrent("team", "7")).toBe(true);
    expect(cache.isCurrent("team", "8")).toBe(false);
  });

  it("reads a team once while a refresh is under way, and replaces the old entry", async () => {
    let reads = 0;
    const cache = new PageBoundaryCache(async () => boundaries(String(++reads), 10), { maxBoundaries: 1_000 });
    await Promise.all([cache.refresh("team"), cache.refresh("team"), cache.refresh("team")]);
    expect(reads).toBe(1);
    await cache.refresh("team");
    expect(cache.isCurrent("team", "2")).toBe(true);
  });

  it("evicts the least recently used teams beyond the bound", async () => {
    const cache = new PageBoundaryCache(async (team) => boundaries(team, 40), { maxBoundaries: 100 });
    await cache.refresh("a");
    await cache.refresh("b");
    cache.seekFor("a", 0); // a is now more recent than b
    await cache.refresh("c");
    expect(cache.isCurrent("a", "a")).toBe(true);
    expect(cache.isCurrent("b", "b")).toBe(false);
    expect(cache.isCurrent("c", "c")).toBe(true);
  });

  it("keeps serving plain offsets when a read fails, and never rejects", async () => {
    const cache = new PageBoundaryCache(
      async () => {
        throw new Error("database down");
      },
      { maxBoundaries: 100 },
    );
    await expect(cache.refresh("team")).resolves.toBeUndefined();
    expect(cache.seekFor("team", 500)).toBeUndefined();
  });
});
