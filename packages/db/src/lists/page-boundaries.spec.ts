import { changedSpan, type PageBoundaries, PageBoundaryCache, seekIn, spliceBoundaries } from "./page-boundaries";

/** `count` boundaries `stride` apart over a list of `count * stride` items whose keys fall by 10 per boundary. */
const boundaries = (version: string, count: number, stride = 100): PageBoundaries => ({
  version,
  stride,
  count: count * stride,
  keys: Array.from({ length: count }, (_, i) => `key-${i}`),
  ids: Array.from({ length: count }, (_, i) => `id-${i}`),
  epochs: Array.from({ length: count }, (_, i) => 1_000 - 10 * i),
  positions: Array.from({ length: count }, (_, i) => i * stride),
});

describe(seekIn.name, () => {
  const entry: PageBoundaries = {
    ...boundaries("3", 4, 10),
    // Uneven after repairs: gaps of at most the stride.
    positions: [0, 10, 13, 23],
    count: 30,
  };

  it.each([
    [0, "key-0", 0],
    [9, "key-0", 9],
    [10, "key-1", 0],
    [12, "key-1", 2],
    [13, "key-2", 0],
    [22, "key-2", 9],
    [29, "key-3", 6],
  ])("offset %i seeks to %s and skips %i", (offset, key, skip) => {
    expect(seekIn(entry, offset)).toMatchObject({ key, skip, version: "3" });
  });

  it("gives no seek a stride or more past the last boundary", () => {
    expect(seekIn(entry, 33)).toBeUndefined();
  });
});

describe(changedSpan.name, () => {
  const entry = boundaries("1", 5); // epochs 1000, 990, 980, 970, 960

  it.each([
    // [low, high] -> from (last boundary strictly before), to (first boundary strictly after)
    [[975, 985], { from: 1, to: 3 }],
    [[980, 980], { from: 1, to: 3 }], // a boundary with the changed key itself is inside
    [[1_001, 2_000], { from: -1, to: 0 }], // before the first boundary: read from the list's start
    [[0, 959], { from: 4, to: 5 }], // after the last: read from the last boundary to the end
    [[Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY], { from: -1, to: 5 }],
  ])("a change of keys %j spans %j", ([low, high], span) => {
    expect(changedSpan(entry, low as number, high as number)).toEqual(span);
  });
});

describe(spliceBoundaries.name, () => {
  it("keeps the boundaries before the span, takes the span's as read and shifts those after it", () => {
    const entry = boundaries("1", 5, 10); // positions 0, 10, 20, 30, 40; 50 items
    // Items were inserted between boundaries 1 and 3: the span from boundary 1 now holds 23 items.
    const spliced = spliceBoundaries(
      entry,
      { from: 1, to: 3 },
      { keys: ["key-1", "new-a", "new-b"], ids: ["id-1", "a", "b"], epochs: [990, 985, 981], count: 23 },
      "2",
    );
    expect(spliced).toEqual({
      version: "2",
      stride: 10,
      count: 53,
      keys: ["key-0", "key-1", "new-a", "new-b", "key-3", "key-4"],
      ids: ["id-0", "id-1", "a", "b", "id-3", "id-4"],
      epochs: [1_000, 990, 985, 981, 970, 960],
      positions: [0, 10, 20, 30, 33, 43],
    });
  });

  it("re-reads from the list's start and to its end when the span is open on both sides", () => {
    const entry = boundaries("1", 3, 10);
    const spliced = spliceBoundaries(
      entry,
      { from: -1, to: 3 },
      { keys: ["k0", "k1"], ids: ["i0", "i1"], epochs: [5, 4], count: 12 },
      "9",
    );
    expect(spliced).toMatchObject({ count: 12, keys: ["k0", "k1"], positions: [0, 10] });
  });
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
