import { buildLinkHeader } from "./link-header";

const path = "/v1/me/community/team/events";
const rels = (header: string) =>
  Object.fromEntries(
    header.split(", ").map((part) => {
      const [, target, rel] = part.match(/^<([^>]+)>; rel="([a-z]+)"$/) ?? [];
      return [rel, target];
    }),
  );

describe(buildLinkHeader.name, () => {
  it("gives first, next and last on the first of several pages", () => {
    expect(rels(buildLinkHeader(path, { current_page: 1, per_page: 10, total_pages: 3 }))).toEqual({
      first: `${path}?page=1&per_page=10`,
      next: `${path}?page=2&per_page=10`,
      last: `${path}?page=3&per_page=10`,
    });
  });

  it("gives prev and next in the middle", () => {
    const links = rels(buildLinkHeader(path, { current_page: 2, per_page: 10, total_pages: 3 }));
    expect(links.prev).toBe(`${path}?page=1&per_page=10`);
    expect(links.next).toBe(`${path}?page=3&per_page=10`);
  });

  it("has no next on the last page", () => {
    expect(rels(buildLinkHeader(path, { current_page: 3, per_page: 10, total_pages: 3 }))).not.toHaveProperty("next");
  });

  it("has no last and no next when there are no items", () => {
    expect(rels(buildLinkHeader(path, { current_page: 1, per_page: 100, total_pages: 0 }))).toEqual({
      first: `${path}?page=1&per_page=100`,
    });
  });

  it("points prev of a page past the end at the last page", () => {
    const links = rels(buildLinkHeader(path, { current_page: 9, per_page: 10, total_pages: 3 }));
    expect(links.prev).toBe(`${path}?page=3&per_page=10`);
    expect(links).not.toHaveProperty("next");
    expect(links.last).toBe(`${path}?page=3&per_page=10`);
  });
});
