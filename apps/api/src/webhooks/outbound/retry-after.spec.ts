import { parseRetryAfter } from "./retry-after";

const NOW = Date.parse("2026-11-06T08:49:37Z");

describe(parseRetryAfter.name, () => {
  it.each([
    ["120", 120],
    ["0", 0],
    [" 30 ", 30],
    ["Fri, 06 Nov 2026 08:51:37 GMT", 120],
    ["Friday, 06-Nov-26 08:50:37 GMT", 60],
    ["Fri Nov  6 08:50:07 2026", 30],
    ["Fri, 06 Nov 2026 08:00:00 GMT", 0],
  ])("reads %j as %i seconds", (header, seconds) => {
    expect(parseRetryAfter(header, NOW)).toBe(seconds);
  });

  it.each([undefined, "", "-5", "1.5", "1e3", "soon", "2026-11-06T08:51:37Z", "Fri, 06 Nov 2026 08:51:37 +0000"])(
    "reads %j as no advice",
    (header) => expect(parseRetryAfter(header, NOW)).toBeNull(),
  );
});
