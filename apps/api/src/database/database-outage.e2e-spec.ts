import { TOKENS } from "@community/fixtures/testing";
import request from "supertest";
import { expectProblem } from "../testing/contract-assertions";
import { type ProxiedE2eApp, startE2eAppBehindProxy } from "../testing/e2e-app";

const PATH = "/v1/me/community/team/events";

/**
 * The database becomes unreachable while the service runs (contract section 7, 503): requests
 * get a 503 problem with Retry-After instead of hanging, and the service recovers by itself.
 */
describe("database outage", () => {
  let e2e: ProxiedE2eApp;
  const get = () => request(e2e.server).get(PATH).set("Authorization", `Bearer ${TOKENS.runner}`).timeout(20_000);

  beforeAll(async () => {
    e2e = await startE2eAppBehindProxy();
  });

  afterAll(() => e2e?.close());

  it("serves, answers 503 with Retry-After while the database is gone, and recovers without a restart", async () => {
    expect((await get()).status).toBe(200);

    await e2e.proxy.cut();
    for (let i = 0; i < 3; i++) {
      const response = await get();
      expectProblem(response, 503, "unavailable");
      expect(response.headers["retry-after"]).toBe(String(e2e.config.retryAfterSeconds));
      expect(response.text).not.toMatch(/ECONNREFUSED|stack|SELECT/i);
    }
    // Unauthenticated requests do not need the database: still a plain 401.
    expectProblem(await request(e2e.server).get(PATH), 401, "unauthorized");

    await e2e.proxy.start();
    let status = 0;
    for (let attempt = 0; attempt < 20 && status !== 200; attempt++) {
      status = (await get()).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(status).toBe(200);
  }, 60_000);
});
