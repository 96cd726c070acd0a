import net from "node:net";
import { hashToken } from "@community/db";
import { contractFixture, TOKENS } from "@community/fixtures/testing";
import request from "supertest";
import { expectProblem } from "../testing/contract-assertions";
import { type E2eApp, startE2eApp } from "../testing/e2e-app";
import { contractAppForSuite } from "../testing/suite-app";
import { replicasSharingRedis } from "./testing/redis-keys";

const EVENTS = "/v1/me/community/team/events";
const GUIDES = "/v1/me/community/team/guides";
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

describe("rate limiting in memory (the default)", () => {
  const e2e = contractAppForSuite({ RATE_LIMIT_MAX: "3", RATE_LIMIT_WINDOW_SECONDS: "120" });

  it("counts per token across both list endpoints, with RateLimit headers, then answers 429 with Retry-After", async () => {
    const remaining: string[] = [];
    for (const path of [EVENTS, GUIDES, EVENTS]) {
      const response = await request(e2e.server).get(path).set(bearer(TOKENS.runner));
      expect(response.status).toBe(200);
      expect(response.headers["ratelimit-policy"]).toBe("default;q=3;w=120");
      remaining.push(response.headers.ratelimit as string);
    }
    expect(remaining.map((header) => header.replace(/;t=\d+$/, ""))).toEqual([
      "default;r=2",
      "default;r=1",
      "default;r=0",
    ]);
    const reset = Number(/;t=(\d+)$/.exec(remaining[0] ?? "")?.[1]);
    expect(reset).toBeGreaterThan(0);
    expect(reset).toBeLessThanOrEqual(120);

    const limited = await request(e2e.server).get(GUIDES).set(bearer(TOKENS.runner));
    expectProblem(limited, 429, "rate-limited");
    const retryAfter = Number(limited.headers["retry-after"]);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(120);
    expect(limited.headers.ratelimit).toBe(`default;r=0;t=${retryAfter}`);
    expect(limited.headers["ratelimit-policy"]).toBe("default;q=3;w=120");

    // Another token of the same client address has a budget of its own.
    expect((await request(e2e.server).get(EVENTS).set(bearer(TOKENS.climber))).status).toBe(200);
  });

  it("counts unauthenticated requests (401s) per client address, apart from any token", async () => {
    for (let i = 0; i < 3; i++) expectProblem(await request(e2e.server).get(EVENTS), 401, "unauthorized");
    expectProblem(await request(e2e.server).get(EVENTS), 429, "rate-limited");
    expectProblem(await request(e2e.server).get(EVENTS).set("Authorization", "Basic abc"), 429, "rate-limited");
    expect((await request(e2e.server).get(EVENTS).set(bearer(TOKENS.noTeam))).status).toBe(404);
  });

  it("ignores X-Forwarded-For unless TRUST_PROXY is set", async () => {
    const response = await request(e2e.server).get(EVENTS).set("X-Forwarded-For", "203.0.113.9");
    expectProblem(response, 429, "rate-limited");
  });

  it("never limits the probes or the metrics", async () => {
    for (let i = 0; i < 5; i++) {
      for (const path of ["/health/live", "/health/ready", "/metrics"]) {
        const response = await request(e2e.server).get(path);
        expect(response.status).toBe(200);
        expect(response.headers["ratelimit-policy"]).toBeUndefined();
      }
    }
  });
});

describe("rate limiting behind a trusted proxy", () => {
  const e2e = contractAppForSuite({ RATE_LIMIT_MAX: "1", RATE_LIMIT_WINDOW_SECONDS: "60", TRUST_PROXY: "loopback" });

  it("takes the client address from X-Forwarded-For sent by the proxy", async () => {
    const from = (ip: string) => request(e2e.server).get(EVENTS).set("X-Forwarded-For", ip);
    expectProblem(await from("203.0.113.1"), 401, "unauthorized");
    expectProblem(await from("203.0.113.1"), 429, "rate-limited");
    expectProblem(await from("203.0.113.2"), 401, "unauthorized");
  });
});

describe("rate limiting turned off", () => {
  const e2e = contractAppForSuite({ RATE_LIMIT_MAX: "0" });

  it("with RATE_LIMIT_MAX=0 sends no RateLimit headers and never answers 429", async () => {
    for (let i = 0; i < 20; i++) {
      const response = await request(e2e.server).get(EVENTS).set(bearer(TOKENS.runner));
      expect(response.status).toBe(200);
      expect(response.headers["ratelimit-policy"]).toBeUndefined();
    }
  });
});

describe("rate limiting in Redis, shared by two replicas", () => {
  const shared = replicasSharingRedis((env) => startE2eApp("postgres", contractFixture(), { env }), {
    RATE_LIMIT_MAX: "4",
    RATE_LIMIT_WINDOW_SECONDS: "60",
  });

  it("spends one budget whichever replica answers", async () => {
    const [a, b] = shared.replicas;
    const statuses: number[] = [];
    for (const replica of [a, b, a, b, a, b]) {
      statuses.push((await request(replica.server).get(EVENTS).set(bearer(TOKENS.runner))).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    const limited = await request(b.server).get(GUIDES).set(bearer(TOKENS.runner));
    expectProblem(limited, 429, "rate-limited");
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
    // Another token still has its own budget on either replica.
    expect((await request(b.server).get(EVENTS).set(bearer(TOKENS.climber))).status).toBe(200);
  });

  it("keys the counters by a hash of the token, never the token itself", async () => {
    const keys = await shared.redis.keys(`${shared.prefix}*`);
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.join("\n")).not.toContain(TOKENS.runner);
    expect(keys.some((key) => key.includes(hashToken(TOKENS.runner)))).toBe(true);
  });
});

describe("rate limiting while Redis is unreachable", () => {
  let e2e: E2eApp;
  let closedPort: number;

  beforeAll(async () => {
    // A port that was just free: nothing listens there.
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", () => resolve()));
    closedPort = (probe.address() as net.AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    e2e = await startE2eApp("postgres", contractFixture(), {
      env: { RATE_LIMIT_MAX: "1", REDIS_URL: `redis://127.0.0.1:${closedPort}` },
    });
  });

  afterAll(async () => {
    await e2e?.close();
  });

  it("serves requests unlimited rather than refusing everyone", async () => {
    for (let i = 0; i < 3; i++) {
      const response = await request(e2e.server).get(EVENTS).set(bearer(TOKENS.runner));
      expect(response.status).toBe(200);
      expect(response.headers["ratelimit-policy"]).toBeUndefined();
    }
  });
});
