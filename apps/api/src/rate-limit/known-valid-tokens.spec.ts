import { KnownValidTokens } from "./known-valid-tokens";

describe(KnownValidTokens.name, () => {
  it("knows a digest once validated, until it is refused", () => {
    const known = new KnownValidTokens(900);
    expect(known.has("a")).toBe(false);
    known.validated("a");
    expect(known.has("a")).toBe(true);
    expect(known.has("b")).toBe(false);
    known.refused("a");
    expect(known.has("a")).toBe(false);
  });

  it("forgets the least recently validated beyond its bound", () => {
    const known = new KnownValidTokens(900);
    for (let i = 0; i <= 10_000; i++) known.validated(`digest-${i}`);
    expect(known.size).toBe(10_000);
    expect(known.has("digest-0")).toBe(false);
    expect(known.has("digest-10000")).toBe(true);
  });

  it("remembers nothing with a ttl of 0", () => {
    const known = new KnownValidTokens(0);
    known.validated("a");
    expect(known.has("a")).toBe(false);
  });
});
