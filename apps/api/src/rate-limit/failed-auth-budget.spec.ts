import type { ThrottlerStorage } from "@nestjs/throttler";
import type { AppConfig } from "../config/config";
import { budgetAddress, FailedAuthBudget } from "./failed-auth-budget";

describe(budgetAddress.name, () => {
  it("keeps an IPv4 address, and unwraps an IPv4-mapped IPv6 one", () => {
    expect(budgetAddress("203.0.113.9")).toBe("203.0.113.9");
    expect(budgetAddress("::ffff:203.0.113.9")).toBe("203.0.113.9");
  });

  it("counts every address of an IPv6 /64 together", () => {
    expect(budgetAddress("2001:db8:1:2:aaaa:bbbb:cccc:dddd")).toBe("2001:db8:1:2::/64");
    expect(budgetAddress("2001:db8:1:2::1")).toBe("2001:db8:1:2::/64");
    expect(budgetAddress("2001:0DB8:0001:0002::ffff")).toBe("2001:db8:1:2::/64");
    expect(budgetAddress("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(budgetAddress("::1")).toBe("0:0:0:0::/64");
  });

  it("names a missing address", () => {
    expect(budgetAddress(undefined)).toBe("unknown");
  });
});

describe(FailedAuthBudget.name, () => {
  type StorageRecord = Awaited<ReturnType<ThrottlerStorage["increment"]>>;

  /** A storage whose every increment answers only when the test says so, as a slow Redis would. */
  function slowStorage() {
    let hits = 0;
    const waiting: (() => void)[] = [];
    const storage = {
      increment: (_key: string, ttl: number, limit: number) =>
        new Promise<StorageRecord>((resolve) => {
          hits += 1;
          const total = hits;
          waiting.push(() =>
            resolve({ totalHits: total, timeToExpire: ttl / 1000, isBlocked: total > limit, timeToBlockExpire: 60 }),
          );
        }),
      answer: () => waiting.shift()?.(),
    };
    return storage;
  }
  const config = { authFailureLimit: 2, authFailureWindowSeconds: 60 } as AppConfig;
  const flush = () => new Promise((resolve) => setImmediate(resolve));

  it("lets a request wait, through settled(), for the failures of its address still being counted", async () => {
    const storage = slowStorage();
    const budget = new FailedAuthBudget(config, storage as unknown as ThrottlerStorage, null);
    expect(budget.settled("203.0.113.9")).toBeUndefined();
    for (let i = 0; i < 3; i++) void budget.fail("203.0.113.9");
    // The third failure is sent, not yet answered: the address is not refused yet, and settled() says so.
    const counting = budget.settled("203.0.113.9");
    expect(counting).toBeDefined();
    expect(budget.settled("198.51.100.7")).toBeUndefined();
    expect(budget.refusedFor("203.0.113.9")).toBe(0);
    let settled = false;
    void counting?.then(() => {
      settled = true;
    });
    // The failures are counted one after the other, each once the one before has its answer.
    for (let i = 0; i < 3; i++) {
      await flush();
      expect(settled).toBe(false);
      storage.answer();
    }
    await counting;
    expect(settled).toBe(true);
    expect(budget.refusedFor("203.0.113.9")).toBeGreaterThan(0);
    expect(budget.settled("203.0.113.9")).toBeUndefined();
  });
});
