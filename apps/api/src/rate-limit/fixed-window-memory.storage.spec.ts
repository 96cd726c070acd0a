import { FixedWindowMemoryStorage } from "./fixed-window-memory.storage";
import { memoryStorageOnFakeClock } from "./testing/memory-storage";

describe(FixedWindowMemoryStorage.name, () => {
  const storage = memoryStorageOnFakeClock();

  it("counts hits in a fixed window and blocks past the limit until the block expires", async () => {
    expect(await storage().increment("k", 10_000, 2, 10_000)).toEqual({
      totalHits: 1,
      timeToExpire: 10,
      isBlocked: false,
      timeToBlockExpire: 0,
    });
    expect((await storage().increment("k", 10_000, 2, 10_000)).isBlocked).toBe(false);
    jest.advanceTimersByTime(4_000);
    expect(await storage().increment("k", 10_000, 2, 10_000)).toMatchObject({ isBlocked: true, timeToBlockExpire: 10 });
    jest.advanceTimersByTime(6_500);
    // The window ended and a new one began, but the block (set 4 s in) still runs.
    expect(await storage().increment("k", 10_000, 2, 10_000)).toMatchObject({ totalHits: 1, isBlocked: true });
    jest.advanceTimersByTime(4_000);
    // As in Redis, hits made while blocked count in their window.
    expect(await storage().increment("k", 10_000, 2, 10_000)).toMatchObject({ totalHits: 2, isBlocked: false });
  });

  it("keeps keys apart", async () => {
    await storage().increment("a", 1_000, 1, 1_000);
    expect((await storage().increment("b", 1_000, 1, 1_000)).totalHits).toBe(1);
  });
});
