import { randomBytes, randomUUID } from "node:crypto";
import { loadFixture } from "@community/fixtures";
import { CLIENT_ID, contractFixture, emptyFixture, TOKENS } from "@community/fixtures/testing";
import request from "supertest";
import { replicasSharingRedis } from "../rate-limit/testing/redis-keys";
import { expectProblem } from "../testing/contract-assertions";
import { type Backend, type E2eApp, startE2eApp } from "../testing/e2e-app";
import { countTokenLookups } from "./testing/token-lookups";

const EVENTS = "/v1/me/community/team/events";
const LIMIT = 5;
const ATTACKER = "203.0.113.9";
const NEIGHBOUR = "198.51.100.7";
const madeUp = () => randomBytes(24).toString("base64url");

const get = (e2e: E2eApp, token: string, address: string) =>
  request(e2e.server).get(EVENTS).set("Authorization", `Bearer ${token}`).set("X-Forwarded-For", address);

describe.each<Backend>(["postgres", "embedded"])("failed authentications from one address on %s", (backend) => {
  let e2e: E2eApp;

  beforeAll(async () => {
    e2e = await startE2eApp(backend, contractFixture(), {
      env: { AUTH_FAILURE_LIMIT: String(LIMIT), TRUST_PROXY: "loopback", RATE_LIMIT_MAX: "100000" },
    });
  }, 120_000);

  afterAll(() => e2e?.close());

  it("spends a budget per address, then answers 429 with Retry-After without looking tokens up", async () => {
    const lookups = countTokenLookups(e2e.database);
    const statuses: number[] = [];
    try {
      for (let i = 0; i < 20; i++) statuses.push((await get(e2e, madeUp(), ATTACKER)).status);
    } finally {
      lookups.restore();
    }
    // The failure that goes over the budget was looked up; every later one is refused before.
    expect(statuses).toEqual([...Array(LIMIT + 1).fill(401), ...Array(20 - LIMIT - 1).fill(429)]);
    expect(lookups.count()).toBe(LIMIT + 1);
    const refused = await get(e2e, madeUp(), ATTACKER);
    expectProblem(refused, 429, "rate-limited");
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
    expect(refused.body.detail).toMatch(/failed authentications/);
    // The address is refused for a token this replica has not seen valid; other addresses are not affected.
    expect((await get(e2e, TOKENS.runner, ATTACKER)).status).toBe(429);
    expect((await get(e2e, TOKENS.runner, NEIGHBOUR)).status).toBe(200);
    expect((await get(e2e, madeUp(), NEIGHBOUR)).status).toBe(401);
  });

  it("looks a made-up token up once however often it is sent", async () => {
    const token = madeUp();
    const lookups = countTokenLookups(e2e.database);
    try {
      // From as many addresses, so that no budget is spent.
      for (let i = 0; i < 3; i++) expect((await get(e2e, token, `192.0.2.${10 + i}`)).status).toBe(401);
    } finally {
      lookups.restore();
    }
    expect(lookups.count()).toBe(1);
  });
});

describe("a token loaded after it was refused", () => {
  let e2e: E2eApp;

  beforeAll(async () => {
    e2e = await startE2eApp("postgres", contractFixture(), {
      env: { TRUST_PROXY: "loopback", AUTH_UNKNOWN_TOKEN_CACHE_MS: "300" },
    });
  }, 120_000);

  afterAll(() => e2e?.close());

  it("works once the refusal has been remembered for AUTH_UNKNOWN_TOKEN_CACHE_MS at most", async () => {
    const token = `late-${randomUUID()}`;
    expect((await get(e2e, token, "192.0.2.50")).status).toBe(401);
    await loadFixture(e2e.database.prisma, {
      ...emptyFixture(),
      access_tokens: [{ token, user_id: "user_runner", client_id: CLIENT_ID, expires_at: null, revoked: false }],
    });
    const started = Date.now();
    let status = 0;
    while (status !== 200 && Date.now() - started < 5_000) {
      status = (await get(e2e, token, "192.0.2.50")).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(status).toBe(200);
  });
});

describe("failed authentications counted in Redis, shared by two replicas", () => {
  const shared = replicasSharingRedis((env) => startE2eApp("postgres", contractFixture(), { env }), {
    AUTH_FAILURE_LIMIT: String(LIMIT),
    TRUST_PROXY: "loopback",
  });

  it("spends one budget whichever replica answers", async () => {
    const [a, b] = shared.replicas;
    const counters = [countTokenLookups(a.database), countTokenLookups(b.database)];
    const statuses: number[] = [];
    try {
      for (let i = 0; i < 20; i++) statuses.push((await get(i % 2 === 0 ? a : b, madeUp(), ATTACKER)).status);
    } finally {
      for (const counter of counters) counter.restore();
    }
    // One budget: each replica looks up at most one more after it is spent (the one that finds out).
    const lookups = counters.reduce((sum, counter) => sum + counter.count(), 0);
    expect(lookups).toBeLessThanOrEqual(LIMIT + 2);
    expect(statuses.filter((status) => status === 429)).toHaveLength(20 - lookups);
    expect(statuses.slice(-4)).toEqual([429, 429, 429, 429]);
    const keys = await shared.redis.keys(`${shared.prefix}*`);
    expect(keys.some((key) => key.includes(ATTACKER))).toBe(true);
  });
});
