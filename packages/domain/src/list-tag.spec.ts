import { ifNoneMatchMatches, knownListVersion, listEntityTag } from "./list-tag";
import type { PageRequest } from "./pagination";

const scope: PageRequest = { page: 2, perPage: 10 };

describe(listEntityTag.name, () => {
  it("is a quoted strong tag that changes with the version, the page and the page size", () => {
    const tag = listEntityTag(scope, "42.7");
    expect(tag).toBe('"42.7-2-10-r1"');
    const others = [
      listEntityTag(scope, "43.7"),
      listEntityTag({ ...scope, page: 3 }, "42.7"),
      listEntityTag({ ...scope, perPage: 11 }, "42.7"),
    ];
    expect(new Set([tag, ...others]).size).toBe(others.length + 1);
  });
});

describe(`${listEntityTag.name} of a version handed out again`, () => {
  it("differs with the stamp, and a tag of the same version with another stamp is not this state's", () => {
    const tag = listEntityTag(scope, "42.7");
    const restored = listEntityTag(scope, "42.8");
    expect(restored).not.toBe(tag);
    expect(ifNoneMatchMatches(tag, restored)).toBe(false);
    expect(knownListVersion(tag, scope)).toBe("42.7");
    // A tag of the earlier form (a version without a stamp) names no state.
    expect(knownListVersion('"42-2-10-r1"', scope)).toBeUndefined();
  });
});

describe(`${listEntityTag.name} per content coding`, () => {
  it("gives each coding its own tag, the identity one without a suffix", () => {
    expect(listEntityTag(scope, "42.7", "identity")).toBe('"42.7-2-10-r1"');
    expect(listEntityTag(scope, "42.7", "gzip")).toBe('"42.7-2-10-r1-gzip"');
    expect(listEntityTag(scope, "42.7", "br")).toBe('"42.7-2-10-r1-br"');
  });

  it("knows a version only from the tag of the same coding", () => {
    const gzip = listEntityTag(scope, "42.7", "gzip");
    expect(knownListVersion(gzip, scope, "gzip")).toBe("42.7");
    expect(knownListVersion(gzip, scope, "identity")).toBeUndefined();
    expect(knownListVersion(gzip, scope, "br")).toBeUndefined();
    expect(knownListVersion(listEntityTag(scope, "42.7"), scope, "gzip")).toBeUndefined();
    expect(
      knownListVersion(`${listEntityTag(scope, "41.7")}, W/${listEntityTag(scope, "42.7", "br")}`, scope, "br"),
    ).toBe("42.7");
  });
});

describe(knownListVersion.name, () => {
  it("gives the version of a tag written for the same page, also weak or among others", () => {
    const tag = listEntityTag(scope, "42.7");
    expect(knownListVersion(tag, scope)).toBe("42.7");
    expect(knownListVersion(`W/${tag}`, scope)).toBe("42.7");
    expect(knownListVersion(`"x", ${tag}`, scope)).toBe("42.7");
    expect(knownListVersion(" * ", scope)).toBe("*");
  });

  it("ignores tags of another page or page size, of another build, and garbage", () => {
    expect(knownListVersion(listEntityTag({ ...scope, page: 1 }, "42.7"), scope)).toBeUndefined();
    expect(knownListVersion(listEntityTag({ ...scope, perPage: 100 }, "42.7"), scope)).toBeUndefined();
    expect(knownListVersion('"42.7-2-10-r0"', scope)).toBeUndefined();
    expect(knownListVersion('"abc"', scope)).toBeUndefined();
    expect(knownListVersion(undefined, scope)).toBeUndefined();
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
