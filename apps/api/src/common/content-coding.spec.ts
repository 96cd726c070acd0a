import { negotiateContentCoding } from "./content-coding";

describe(negotiateContentCoding.name, () => {
  it.each([
    [undefined, "identity"],
    ["", "identity"],
    ["identity", "identity"],
    ["gzip", "gzip"],
    ["gzip, deflate", "gzip"],
    ["x-gzip", "gzip"],
    ["gzip, deflate, br", "br"],
    ["br;q=0.5, gzip", "gzip"],
    ["br;q=1.0, gzip;q=0.8", "br"],
    ["GZIP", "gzip"],
    ["*", "br"],
    ["*, br;q=0", "gzip"],
    ["gzip;q=0, br;q=0", "identity"],
    ["deflate, compress", "identity"],
    ["br ; q = 0.3", "br"],
    ["garbage;;;", "identity"],
  ])("%j -> %s", (header, expected) => {
    expect(negotiateContentCoding(header)).toBe(expected);
  });
});
