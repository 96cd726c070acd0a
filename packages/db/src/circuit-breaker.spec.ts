import { CircuitBreaker, CircuitOpenError } from "./circuit-breaker";

describe(CircuitBreaker.name, () => {
  let up: boolean;
  let probes: number;
  let breaker: CircuitBreaker;
  let events: string[];

  beforeEach(() => {
    jest.useFakeTimers();
    up = false;
    probes = 0;
    events = [];
    breaker = new CircuitBreaker("the thing", {
      threshold: 3,
      probeIntervalMs: 1_000,
      reportIntervalMs: 10_000,
      probe: async () => {
        probes += 1;
        if (!up) throw new Error("still down");
      },
    });
    breaker.on("open", (error) => events.push(`open: ${error.message}`));
    breaker.on("close", () => events.push("close"));
    breaker.on("refused", (count, ms) => events.push(`refused ${count} in ${ms} ms`));
  });

  afterEach(() => {
    breaker.stop();
    jest.useRealTimers();
  });

  const refuse = (times: number) => {
    for (let i = 0; i < times; i++) expect(() => breaker.admit()).toThrow(CircuitOpenError);
  };

  it("opens at once when tripped, and closes on the next good probe", async () => {
    breaker.trip(new Error("frozen"));
    expect(breaker.state).toBe("open");
    expect(events).toEqual(["open: frozen"]);
    up = true;
    await jest.advanceTimersByTimeAsync(1_000);
    expect(breaker.state).toBe("closed");
  });

  it("opens after `threshold` consecutive failures only", () => {
    breaker.recordFailure(new Error("a"));
    breaker.recordFailure(new Error("b"));
    breaker.recordSuccess();
    breaker.recordFailure(new Error("c"));
    breaker.recordFailure(new Error("d"));
    expect(breaker.state).toBe("closed");
    expect(() => breaker.admit()).not.toThrow();
    breaker.recordFailure(new Error("e"));
    expect(breaker.state).toBe("open");
    expect(events).toEqual(["open: e"]);
    refuse(2);
    expect(breaker.refusedTotal).toBe(2);
  });

  it("probes in the background while open and closes on the first successful probe", async () => {
    for (let i = 0; i < 3; i++) breaker.recordFailure(new Error("down"));
    await jest.advanceTimersByTimeAsync(3_000);
    expect(probes).toBe(3);
    expect(breaker.state).toBe("open");
    up = true;
    await jest.advanceTimersByTimeAsync(1_000);
    expect(breaker.state).toBe("closed");
    expect(events).toEqual(["open: down", "close"]);
    // Closed: no more probes.
    await jest.advanceTimersByTimeAsync(5_000);
    expect(probes).toBe(4);
  });

  it("reports the refused calls once per interval, not once per call, and the rest when it closes", async () => {
    for (let i = 0; i < 3; i++) breaker.recordFailure(new Error("down"));
    refuse(500);
    await jest.advanceTimersByTimeAsync(10_000);
    refuse(20);
    await jest.advanceTimersByTimeAsync(10_000);
    // Nothing refused in this interval: nothing reported.
    await jest.advanceTimersByTimeAsync(10_000);
    refuse(7);
    up = true;
    await jest.advanceTimersByTimeAsync(1_000);
    expect(events).toEqual([
      "open: down",
      "refused 500 in 10000 ms",
      "refused 20 in 10000 ms",
      // Counted from the last report (at 20 s; the empty interval reported nothing).
      "refused 7 in 11000 ms",
      "close",
    ]);
    expect(breaker.refusedTotal).toBe(527);
  });

  it("stops probing once stopped", async () => {
    for (let i = 0; i < 3; i++) breaker.recordFailure(new Error("down"));
    breaker.stop();
    await jest.advanceTimersByTimeAsync(5_000);
    expect(probes).toBe(0);
  });
});
