import { parseLinkHeader } from "./link-header";

const BASE = "http://api.test/v1/me/community/team/events?page=2";

describe(parseLinkHeader.name, () => {
  it("resolves each relation's target against the response URL; the first link of a relation wins", () => {
    const links = parseLinkHeader(
      '</v1/x?page=1&per_page=2>; rel="first", <?page=3>; rel=next, <http://api.test/other>; rel="next", <p4>; title="a, b; c"; rel="last prev"',
      BASE,
    );
    expect(Object.fromEntries(links)).toEqual({
      first: "http://api.test/v1/x?page=1&per_page=2",
      next: "http://api.test/v1/me/community/team/events?page=3",
      last: "http://api.test/v1/me/community/team/p4",
      prev: "http://api.test/v1/me/community/team/p4",
    });
  });

  it("keeps what came before a malformed link and nothing after it", () => {
    expect(Object.fromEntries(parseLinkHeader('</a>; rel="first", garbage, </b>; rel="next"', BASE))).toEqual({
      first: "http://api.test/a",
    });
    expect(parseLinkHeader("", BASE).size).toBe(0);
    expect(parseLinkHeader('<http://[bad>; rel="next"', BASE).size).toBe(0);
  });
});
