import { testAdminUrl } from "@community/db/testing";
import { contractFixture, TOKENS } from "@community/fixtures/testing";
import request from "supertest";
import { expectProblem } from "../testing/contract-assertions";
import { type E2eApp, startE2eApp } from "../testing/e2e-app";
import { TcpProxy } from "../testing/tcp-proxy";

const PATH = "/v1/me/community/team/events";

/**
 * The database becomes unreachable while the service runs (contract section 7, 503): requests
 * get a 503 problem with Retry-After instead of hanging, and the service recovers by itself.
 */
describe("database outage", () => {
  let proxy: TcpProxy;
  let e2e: E2eApp;
  const get = () => request(e2e.server).get(PATH).set("Authorization", `Bearer ${TOKENS.runner}`).timeout(20_000);

  beforeAll(async () => {
    proxy = await TcpProxy.inFrontOf(testAdminUrl());
    e2e = await startE2eApp("postgres", contractFixture(), { rewriteUrl: (url) => proxy.route(url) });
  });

  afterAll(async () => {
    await e2e?.close();
    await proxy?.cut();
  });

  it("serves, answers 503 with Retry-After while the database is gone, and recovers without a restart", async () => {
    expect((await get()).status).toBe(200);

    await proxy.cut();
    for (let i = 0; i < 3; i++) {
      const response = await get();
      expectProblem(response, 503, "unavailable");
      expect(response.headers["retry-after"]).toBe(String(e2e.config.retryAfterSeconds));
      expect(response.text).not.toMatch(/ECONNREFUSED|stack|SELECT/i);
    }
    // Unauthenticated requests do not need the database: still a plain 401.
    expectProblem(await request(e2e.server).get(PATH), 401, "unauthorized");

    await proxy.start();
    let status = 0;
    for (let attempt = 0; attempt < 20 && status !== 200; attempt++) {
      status = (await get()).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(status).toBe(200);
  }, 60_000);
});
