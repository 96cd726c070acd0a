import { problemInstance } from "./problem-instance";

describe(problemInstance.name, () => {
  const EVENTS = "/v1/me/community/team/events";

  it.each([
    [EVENTS, EVENTS],
    [`${EVENTS}?`, EVENTS],
    [`${EVENTS}?per_page=500`, `${EVENTS}?per_page=500`],
    [`${EVENTS}?page=%2B1&per_page=`, `${EVENTS}?page=%2B1&per_page=`],
    [`${EVENTS}?page=1&page=2`, `${EVENTS}?page=1&page=2`],
    [`${EVENTS}?page[]=1&per_page%5Ba%5D=2`, `${EVENTS}?page%5B%5D=1&per_page%5Ba%5D=2`],
    [`${EVENTS}?page=1%&page=|"x"`, `${EVENTS}?page=1%25&page=%7C%22x%22`],
    ["/nowhere[1] x", "/nowhere%5B1%5D%20x"],
    [`${EVENTS}?access_token=secret`, EVENTS],
    [`${EVENTS}?access_token=secret&page=0`, `${EVENTS}?page=0`],
    [`${EVENTS}?page=0&client_secret=s&code=c&id_token_hint=h`, `${EVENTS}?page=0`],
    [`${EVENTS}?pag%65=3&%ZZ=secret`, `${EVENTS}?pag%65=3`],
    ["/oauth/auth?client_id=a&code_challenge=b&state=c", "/oauth/auth"],
    // Always a path of this service: never a network-path reference or another origin.
    ["//evil.example/v1/x", "/evil.example/v1/x"],
    ["///evil.example", "/evil.example"],
    ["/\\evil.example/x", "/%5Cevil.example/x"],
    [`http://evil.example${EVENTS}?page=2&token=t`, `${EVENTS}?page=2`],
    ["https://evil.example", "/"],
    ["http://evil.example//other.example/x", "/other.example/x"],
    ["*", "/"],
  ])("answers %s with %s", (url, instance) => {
    expect(problemInstance(url)).toBe(instance);
  });
});
