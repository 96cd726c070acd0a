import { Logger } from "@nestjs/common";
import { loadConfig } from "../../config/config";
import { memoryStorageOnFakeClock } from "../../rate-limit/testing/memory-storage";
import { RedisConnection } from "../../redis/redis.provider";
import { LimitCounter } from "./limit-counter";
import { LoginThrottle, lockoutTiers } from "./login-throttle";

describe(lockoutTiers.name, () => {
  it("grows each tier 4 times longer with `attempts` more, up to the longest lockout", () => {
    expect(lockoutTiers({ attempts: 5, windowSeconds: 60, maxLockoutSeconds: 3_600, addressMax: 0 })).toEqual([
      { windowMs: 60_000, limit: 5 },
      { windowMs: 240_000, limit: 10 },
      { windowMs: 960_000, limit: 15 },
      { windowMs: 3_600_000, limit: 20 },
    ]);
    expect(lockoutTiers({ attempts: 3, windowSeconds: 60, maxLockoutSeconds: 30, addressMax: 0 })).toEqual([
      { windowMs: 60_000, limit: 3 },
    ]);
    expect(lockoutTiers({ attempts: 0, windowSeconds: 60, maxLockoutSeconds: 3_600, addressMax: 0 })).toEqual([]);
  });
});

describe(LoginThrottle.name, () => {
  const storage = memoryStorageOnFakeClock();

  const throttle = (env: NodeJS.ProcessEnv) => new LoginThrottle(new LimitCounter(storage(), null), loadConfig(env));

  it("locks an account at an address for longer each time the attempts go on", async () => {
    const login = throttle({
      LOGIN_RATE_LIMIT_ATTEMPTS: "2",
      LOGIN_RATE_LIMIT_WINDOW_SECONDS: "10",
      LOGIN_RATE_LIMIT_MAX_LOCKOUT_SECONDS: "160",
      LOGIN_RATE_LIMIT_ADDRESS_MAX: "0",
    });
    const waits: number[] = [];
    for (let attempt = 0; attempt < 7; attempt++) {
      const wait = await login.attempt("user_runner", "203.0.113.1");
      waits.push(wait);
      jest.advanceTimersByTime(wait * 1000);
    }
    // Two free attempts, locked 10 s; one more each tier later, 40 s; then 160 s.
    expect(waits).toEqual([0, 0, 10, 0, 40, 0, 160]);
  });

  it("keeps accounts and addresses apart, and limits an address whatever the account", async () => {
    const login = throttle({ LOGIN_RATE_LIMIT_ATTEMPTS: "1", LOGIN_RATE_LIMIT_ADDRESS_MAX: "3" });
    expect(await login.attempt("a", "203.0.113.1")).toBe(0);
    expect(await login.attempt("a", "203.0.113.1")).toBe(60);
    // The same account from another address, another account from the first one.
    expect(await login.attempt("a", "203.0.113.2")).toBe(0);
    expect(await login.attempt("b", "203.0.113.1")).toBe(0);
    // The first address made its 4th attempt: refused for any account.
    expect(await login.attempt("c", "203.0.113.1")).toBe(60);
  });

  it("lets every attempt through when Redis fails, as the api's limiter does, and warns once", async () => {
    const warn = jest.spyOn(Logger.prototype, "warn").mockImplementation(() => undefined);
    // Never connected (lazy): only the state it tracks is used.
    const redis = new RedisConnection("redis://127.0.0.1:1", "test:", 100);
    try {
      const failing = { increment: () => Promise.reject(new Error("redis down")) };
      const counter = new LimitCounter(failing, redis);
      const login = new LoginThrottle(counter, loadConfig({ LOGIN_RATE_LIMIT_ATTEMPTS: "1" }));
      for (let attempt = 0; attempt < 3; attempt++) expect(await login.attempt("a", "203.0.113.1")).toBe(0);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(redis.isAnswering).toBe(false);
      expect(redis.unlimitedRequests).toBe(3);
    } finally {
      warn.mockRestore();
      redis.client.disconnect();
    }
  });
});
