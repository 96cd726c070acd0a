import { QueryReadTimeoutError, QueryWatchdog, type WatchedConnection } from "./query-watchdog";

class FakeConnection implements WatchedConnection {
  readonly pending: number[] = [];
  readonly cuts: Error[] = [];
  cut(error: Error): void {
    this.cuts.push(error);
  }
}

describe("QueryWatchdog", () => {
  let now = 0;
  const clock = () => now;
  const watchdogs: QueryWatchdog[] = [];
  const make = (boundMs: number) => {
    const watchdog = new QueryWatchdog(boundMs, clock);
    watchdogs.push(watchdog);
    return watchdog;
  };

  /** Checks at `at` ms; returns how many times `connection` has been cut so far. */
  const cutsAfterCheckAt = (watchdog: QueryWatchdog, at: number, connection: FakeConnection) => {
    now = at;
    watchdog.check();
    return connection.cuts.length;
  };

  beforeEach(() => {
    now = 1_000;
  });

  afterEach(() => {
    // Forget whatever a test left watched, so that no interval outlives it.
    for (const watchdog of watchdogs.splice(0))
      for (const connection of (watchdog as unknown as { connections: Set<WatchedConnection> }).connections)
        watchdog.forget(connection);
  });

  it("cuts a connection whose oldest unanswered query has waited the bound, and only that one", () => {
    const watchdog = make(500);
    const stuck = new FakeConnection();
    const busy = new FakeConnection();
    const idle = new FakeConnection();
    for (const connection of [stuck, busy, idle]) watchdog.watch(connection);
    stuck.pending.push(1_000, 1_400);
    busy.pending.push(1_200);

    expect(cutsAfterCheckAt(watchdog, 1_499, stuck)).toBe(0);
    expect(cutsAfterCheckAt(watchdog, 1_500, stuck)).toBe(1);
    expect(stuck.cuts[0]).toBeInstanceOf(QueryReadTimeoutError);
    expect(stuck.cuts[0]?.message).toMatch(/^Query read timeout: .* 500 ms$/);
    expect(stuck.pending).toEqual([]);
    expect(busy.cuts).toEqual([]);
    expect(idle.cuts).toEqual([]);
    // A cut connection is no longer watched: it is not cut twice.
    expect(watchdog.size).toBe(2);
    expect(cutsAfterCheckAt(watchdog, 5_000, stuck)).toBe(1);
    expect(busy.cuts).toHaveLength(1);
    expect(idle.cuts).toEqual([]);
  });

  it("measures from the oldest query still unanswered, not from the connection's first", () => {
    const watchdog = make(500);
    const connection = new FakeConnection();
    watchdog.watch(connection);
    connection.pending.push(1_000);
    now = 1_300;
    connection.pending.shift(); // answered
    connection.pending.push(1_300);
    expect(cutsAfterCheckAt(watchdog, 1_700, connection)).toBe(0);
    expect(cutsAfterCheckAt(watchdog, 1_800, connection)).toBe(1);
  });

  it("looks every tenth of the bound, between 10 ms and 1 s", () => {
    expect(make(300).tickMs).toBe(30);
    expect(make(50).tickMs).toBe(10);
    expect(make(11_000).tickMs).toBe(1_000);
  });

  it("runs its interval only while it watches a connection", () => {
    const watchdog = make(500);
    const interval = () => (watchdog as unknown as { interval: unknown }).interval;
    const a = new FakeConnection();
    const b = new FakeConnection();
    expect(interval()).toBeUndefined();
    watchdog.watch(a);
    watchdog.watch(b);
    expect(interval()).toBeDefined();
    watchdog.forget(a);
    expect(interval()).toBeDefined();
    watchdog.forget(b);
    expect(interval()).toBeUndefined();
  });
});
