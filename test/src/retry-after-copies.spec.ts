import { parseRetryAfter as apiParse } from "../../apps/api/src/webhooks/outbound/retry-after";
import { parseRetryAfter as clientParse } from "../../packages/client/src/retry-after";

// The api and the published client each carry the parser (the client has no dependencies, and the
// api does not depend on the client): both must read every header the same way.
const NOW = Date.parse("2026-11-06T08:49:37Z");

describe("the two Retry-After parsers", () => {
  it.each([
    "120",
    "0",
    " 30 ",
    "Fri, 06 Nov 2026 08:51:37 GMT",
    "Friday, 06-Nov-26 08:50:37 GMT",
    "Fri Nov  6 08:50:07 2026",
    "Fri, 06 Nov 2026 08:00:00 GMT",
    "",
    "-5",
    "1.5",
    "1e3",
    "soon",
    "2026-11-06T08:51:37Z",
    "Fri, 06 Nov 2026 08:51:37 +0000",
    "Fri, 31 Feb 2026 08:51:37 GMT",
  ])("agree on %j", (header) => {
    expect(apiParse(header, NOW) ?? "no advice").toBe(clientParse(header, NOW) ?? "no advice");
  });

  it("agree on an absent header", () => {
    expect(apiParse(undefined, NOW)).toBeNull();
    expect(clientParse(null, NOW)).toBeUndefined();
  });
});
