import { FixedWindowMemoryStorage } from "../fixed-window-memory.storage";

/**
 * For a describe block: each test gets a fresh in-memory limiter storage on jest's fake clock,
 * stopped afterwards. Returns the current test's storage.
 */
export function memoryStorageOnFakeClock(): () => FixedWindowMemoryStorage {
  let storage: FixedWindowMemoryStorage | undefined;
  beforeEach(() => {
    jest.useFakeTimers({ now: new Date("2026-01-01T00:00:00Z") });
    storage = new FixedWindowMemoryStorage();
  });
  afterEach(() => {
    storage?.onApplicationShutdown();
    jest.useRealTimers();
  });
  return () => {
    if (storage === undefined) throw new Error("memoryStorageOnFakeClock() serves tests only");
    return storage;
  };
}
