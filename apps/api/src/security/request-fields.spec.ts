import { parse } from "node:querystring";
import { queryParameterCount } from "./request-fields";

describe(queryParameterCount.name, () => {
  it.each([
    ["/events", 0],
    ["/events?", 0],
    ["/events?page=2", 1],
    ["/events?page=2&per_page=5", 2],
    ["/events?&", 2],
    ["/events?a=1&&b=2", 3],
    ["/events?a=1&b=2&", 3],
  ])("counts %s as %i", (url, count) => {
    expect(queryParameterCount(url)).toBe(count);
  });

  it("counts as node:querystring's maxKeys does: the 1,000th field is read, the 1,001st is not", () => {
    const thousand = `${"&".repeat(999)}a=1`;
    const thousandAndOne = `${"&".repeat(1000)}a=1`;
    expect([queryParameterCount(`/x?${thousand}`), "a" in parse(thousand)]).toEqual([1000, true]);
    expect([queryParameterCount(`/x?${thousandAndOne}`), "a" in parse(thousandAndOne)]).toEqual([1001, false]);
  });
});
