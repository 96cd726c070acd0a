import { entityTag, ifNoneMatchMatches } from "./etag";

describe(entityTag.name, () => {
  it("is a quoted strong tag that changes with the body", () => {
    const a = entityTag('{"a":1}');
    expect(a).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(entityTag('{"a":1}')).toBe(a);
    expect(entityTag('{"a":2}')).not.toBe(a);
  });
});

describe(ifNoneMatchMatches.name, () => {
  const tag = '"abc"';
  it.each([
    ['"abc"', true],
    ['W/"abc"', true],
    ['"x", "abc"', true],
    ["*", true],
    ['"abcd"', false],
    ["abc", false],
    ["", false],
  ])("%j -> %s", (header, expected) => {
    expect(ifNoneMatchMatches(header, tag)).toBe(expected);
  });

  it("is false without the header", () => {
    expect(ifNoneMatchMatches(undefined, tag)).toBe(false);
  });
});
