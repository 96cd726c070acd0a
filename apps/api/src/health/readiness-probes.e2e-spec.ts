import { contractFixture } from "@community/fixtures/testing";
import request from "supertest";
import { type E2eApp, startE2eApp } from "../testing/e2e-app";
import { DatabaseHealthIndicator } from "./database.health";

describe("readiness under a flood of probes", () => {
  let e2e: E2eApp;
  let checks: jest.SpyInstance;

  beforeAll(async () => {
    e2e = await startE2eApp("postgres", contractFixture(), { env: { READINESS_CACHE_MS: "60000" } });
    checks = jest.spyOn(DatabaseHealthIndicator.prototype, "check");
  });

  afterAll(async () => {
    checks?.mockRestore();
    await e2e?.close();
  });

  it("answers many probes from one database check", async () => {
    const probes = await Promise.all(Array.from({ length: 40 }, () => request(e2e.server).get("/health/ready")));
    const later = await request(e2e.server).get("/health/ready");
    expect([...probes, later].map((probe) => probe.status)).toEqual(Array(41).fill(200));
    expect(checks).toHaveBeenCalledTimes(1);
  });
});
