import request from "supertest";
import { expectProblem } from "../testing/contract-assertions";
import { contractAppForSuite } from "../testing/suite-app";

describe("rate limiting of paths that match no route", () => {
  const e2e = contractAppForSuite({ RATE_LIMIT_MAX: "3", RATE_LIMIT_WINDOW_SECONDS: "120" });

  it("counts unmatched paths against the caller's budget like any route, then answers 429", async () => {
    const statuses: number[] = [];
    for (const path of ["/nothing", "/v2/anything", "/nothing/else"]) {
      const response = await request(e2e.server).get(path);
      expectProblem(response, 404, "not-found");
      expect(response.headers.ratelimit).toMatch(/^default;r=\d+;t=\d+$/);
      statuses.push(response.status);
    }
    const limited = await request(e2e.server).get("/nothing/at/all");
    expectProblem(limited, 429, "rate-limited");
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
    expect(statuses).toEqual([404, 404, 404]);
  });
});
