import { contractFixture, TOKENS } from "@community/fixtures/testing";
import request from "supertest";
import { expectProblem } from "../testing/contract-assertions";
import { type E2eApp, startE2eApp } from "../testing/e2e-app";
import { contractAppForSuite } from "../testing/suite-app";

const EVENTS = "/v1/me/community/team/events";

/** The value of one sample line of the exposition, e.g. `http_requests_total{…}`. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`))) {
      return Number(line.slice(line.lastIndexOf(" ") + 1));
    }
  }
  return undefined;
}

describe("GET /metrics", () => {
  const e2e = contractAppForSuite();

  it("exposes request counts and latency by route template and status, query latency, pool use and process metrics", async () => {
    const auth = { Authorization: `Bearer ${TOKENS.runner}` };
    for (let i = 0; i < 3; i++)
      expect(
        (
          await request(e2e.server)
            .get(`${EVENTS}?page=${i + 1}`)
            .set(auth)
        ).status,
      ).toBe(200);
    expectProblem(await request(e2e.server).get(EVENTS), 401, "unauthorized");
    expect((await request(e2e.server).get("/no/such/path/12345")).status).toBe(404);

    const response = await request(e2e.server).get("/metrics");
    expect(response.status).toBe(200);
    expect(response.headers["content-type"]).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = response.text;
    const route = { method: "GET", route: EVENTS };
    expect(sample(text, "http_requests_total", { ...route, status: "200" })).toBe(3);
    expect(sample(text, "http_requests_total", { ...route, status: "401" })).toBe(1);
    expect(sample(text, "http_request_duration_seconds_count", { ...route, status: "200" })).toBe(3);
    expect(sample(text, "http_request_duration_seconds_bucket", { ...route, status: "200", le: "+Inf" })).toBe(3);
    // Unknown paths share one label: the raw URL (and its query) never becomes a series.
    expect(sample(text, "http_requests_total", { route: "unmatched", status: "404" })).toBe(1);
    expect(text).not.toContain("12345");
    expect(text).not.toContain("page=");

    expect(sample(text, "db_query_duration_seconds_count", { outcome: "ok" })).toBeGreaterThanOrEqual(3);
    expect(sample(text, "db_pool_connections")).toBeGreaterThanOrEqual(1);
    expect(sample(text, "db_pool_idle_connections")).toBeGreaterThanOrEqual(0);
    expect(sample(text, "db_pool_waiting_requests")).toBe(0);
    expect(sample(text, "db_pool_max_connections")).toBe(4);
    expect(sample(text, "process_cpu_user_seconds_total")).toBeGreaterThan(0);
    expect(sample(text, "nodejs_eventloop_lag_seconds")).toBeDefined();
  });
});

describe("GET /metrics with METRICS_TOKEN", () => {
  const token = "scrape-secret-0123456789";
  const e2e = contractAppForSuite({ METRICS_TOKEN: token });

  it.each([
    ["no Authorization header", undefined],
    ["a wrong token", "Bearer scrape-secret-9876543210"],
    ["an api access token", `Bearer ${TOKENS.runner}`],
    ["the token under another scheme", `Basic ${token}`],
  ])("answers %s with a 401 problem", async (_case, header) => {
    const call = request(e2e.server).get("/metrics");
    const response = await (header === undefined ? call : call.set("Authorization", header));
    expectProblem(response, 401, "unauthorized");
    expect(response.headers["www-authenticate"]).toBe('Bearer realm="metrics"');
  });

  it("serves the metrics to a scraper that sends the token", async () => {
    const response = await request(e2e.server).get("/metrics").set("Authorization", `Bearer ${token}`);
    expect(response.status).toBe(200);
    expect(response.text).toContain("http_requests_total");
  });

  it("leaves the probes open", async () => {
    expect((await request(e2e.server).get("/health/live")).status).toBe(200);
  });
});

describe("GET /metrics in production (NODE_ENV=production)", () => {
  const token = "scrape-secret-0123456789";
  let open: E2eApp;
  let closed: E2eApp;

  beforeAll(async () => {
    [open, closed] = await Promise.all([
      startE2eApp("postgres", contractFixture(), { env: { NODE_ENV: "production", METRICS_TOKEN: token } }),
      startE2eApp("postgres", contractFixture(), { env: { NODE_ENV: "production" } }),
    ]);
  });

  afterAll(async () => {
    await Promise.all([open?.close(), closed?.close()]);
  });

  it("requires METRICS_TOKEN when it is set", async () => {
    expectProblem(await request(open.server).get("/metrics"), 401, "unauthorized");
    const response = await request(open.server).get("/metrics").set("Authorization", `Bearer ${token}`);
    expect(response.status).toBe(200);
  });

  it("serves no metrics at all without METRICS_TOKEN: the public port never exposes them", async () => {
    for (const header of [undefined, `Bearer ${token}`, `Bearer ${TOKENS.runner}`]) {
      const call = request(closed.server).get("/metrics");
      expectProblem(await (header === undefined ? call : call.set("Authorization", header)), 404, "not-found");
    }
    expect((await request(closed.server).get("/health/ready")).status).toBe(200);
  });
});
