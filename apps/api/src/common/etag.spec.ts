import { ifNoneMatchMatches, knownListVersion, type ListTagScope, listEntityTag } from "./etag";

const scope: ListTagScope = { list: "events", teamId: "team_a", page: 2, perPage: 10 };

describe(listEntityTag.name, () => {
  it("is a quoted strong tag that changes with the version, the list, the team and the page", () => {
    const tag = listEntityTag(scope, "42");
    expect(tag).toMatch(/^"[0-9]+\.[A-Za-z0-9_-]{22}"$/);
    expect(listEntityTag({ ...scope }, "42")).toBe(tag);
    const others = [
      listEntityTag(scope, "43"),
      listEntityTag({ ...scope, list: "guides" }, "42"),
      listEntityTag({ ...scope, teamId: "team_b" }, "42"),
      listEntityTag({ ...scope, page: 3 }, "42"),
      listEntityTag({ ...scope, perPage: 11 }, "42"),
    ];
    expect(new Set([tag, ...others]).size).toBe(others.length + 1);
  });
});

describe(knownListVersion.name, () => {
  it("gives the version of a tag issued for the same scope, also weak or among others", () => {
    const tag = listEntityTag(scope, "42");
    expect(knownListVersion(tag, scope)).toBe("42");
    expect(knownListVersion(`W/${tag}`, scope)).toBe("42");
    expect(knownListVersion(`"x", ${tag}`, scope)).toBe("42");
    expect(knownListVersion(" * ", scope)).toBe("*");
  });

  it("ignores tags of another scope, forged tags and garbage", () => {
    expect(knownListVersion(listEntityTag({ ...scope, page: 1 }, "42"), scope)).toBeUndefined();
    expect(knownListVersion(listEntityTag({ ...scope, teamId: "team_b" }, "42"), scope)).toBeUndefined();
    const [, mac] = listEntityTag(scope, "42").slice(1, -1).split(".");
    expect(knownListVersion(`"43.${mac}"`, scope)).toBeUndefined();
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
