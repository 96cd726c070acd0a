import { UnknownTokenCache } from "./unknown-token-cache";

describe(UnknownTokenCache.name, () => {
  let now = 1_000_000;
  const clock = () => now;

  it("remembers a refused digest for its time to live only", () => {
    const cache = new UnknownTokenCache(2_000, clock);
    cache.add("a");
    expect(cache.has("a")).toBe(true);
    expect(cache.has("b")).toBe(false);
    now += 1_999;
    expect(cache.has("a")).toBe(true);
    now += 2;
    expect(cache.has("a")).toBe(false);
    expect(cache.size).toBe(0);
  });

  it("remembers nothing with a time to live of 0", () => {
    const cache = new UnknownTokenCache(0, clock);
    cache.add("a");
    expect(cache.has("a")).toBe(false);
  });

  it("holds at most 10,000 digests, forgetting the oldest", () => {
    const cache = new UnknownTokenCache(60_000, clock);
    for (let i = 0; i <= 10_000; i++) cache.add(String(i));
    expect(cache.size).toBe(10_000);
    expect(cache.has("0")).toBe(false);
    expect(cache.has("10000")).toBe(true);
  });
});
