import { changedBefore, waitParam } from "./peer-queries";
import { FreshnessLedger, percentile } from "./sync-copies";
import { freshnessCutoffMs, meanTotals, type PhaseTotals, perCopyHour } from "./sync-push";

describe(FreshnessLedger.name, () => {
  const followed = [{ teamId: "mt_1", list: "events" as const }];

  it("measures a write from when it was sent to the first response that carries it", () => {
    const ledger = new FreshnessLedger(followed);
    ledger.wrote({ teamId: "mt_1", list: "events", id: "ev_1", op: "update", sentAt: 1000 });
    ledger.wrote({ teamId: "mt_1", list: "events", id: "ev_2", op: "update", sentAt: 1100 });
    ledger.saw("mt_1", "events", [{ op: "upsert", id: "ev_1" }], 1040);
    ledger.saw("mt_1", "events", [{ op: "upsert", id: "ev_1" }], 1500);
    ledger.saw("mt_1", "events", [{ op: "upsert", id: "ev_2" }], 1400);

    const summary = ledger.summary(10_000, 100);
    expect(summary).toMatchObject({ writes: 2, seen: 2, missed: 0, p50Ms: 40, p99Ms: 300, maxMs: 300 });
    expect(summary.withinTarget).toBe(0.5);
  });

  it("leaves out the lists no copy follows and the writes after the cutoff, and counts the unseen as missed", () => {
    const ledger = new FreshnessLedger(followed);
    ledger.wrote({ teamId: "mt_2", list: "events", id: "ev_9", op: "update", sentAt: 0 });
    ledger.wrote({ teamId: "mt_1", list: "guides", id: "gd_9", op: "update", sentAt: 0 });
    ledger.wrote({ teamId: "mt_1", list: "events", id: "ev_1", op: "update", sentAt: 100 });
    ledger.wrote({ teamId: "mt_1", list: "events", id: "ev_2", op: "update", sentAt: 5000 });

    expect(ledger.summary(1000)).toMatchObject({ writes: 1, seen: 0, missed: 1, p50Ms: 0, withinTarget: null });
  });

  it("does not take a response that arrived before the write was sent, or an upsert for a delete, as seeing it", () => {
    const ledger = new FreshnessLedger(followed);
    ledger.wrote({ teamId: "mt_1", list: "events", id: "ev_w1", op: "insert", sentAt: 100 });
    ledger.saw("mt_1", "events", [{ op: "upsert", id: "ev_w1" }], 150);
    ledger.wrote({ teamId: "mt_1", list: "events", id: "ev_w1", op: "delete", sentAt: 200 });
    // Read before the delete committed: the insert again.
    ledger.saw("mt_1", "events", [{ op: "upsert", id: "ev_w1" }], 210);
    expect(ledger.summary(1000)).toMatchObject({ writes: 2, seen: 1, missed: 1 });

    ledger.saw("mt_1", "events", [{ op: "delete", id: "ev_w1" }], 260);
    expect(ledger.summary(1000)).toMatchObject({ writes: 2, seen: 2, missed: 0, maxMs: 60 });

    const early = new FreshnessLedger(followed);
    early.saw("mt_1", "events", [{ op: "upsert", id: "ev_3" }], 50);
    early.wrote({ teamId: "mt_1", list: "events", id: "ev_3", op: "update", sentAt: 100 });
    expect(early.summary(1000)).toMatchObject({ seen: 0, missed: 1 });
  });
});

describe("percentile", () => {
  it("takes the nearest rank", () => {
    const values = Float64Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile(values, 100)).toBe(100);
    expect(percentile(new Float64Array(0), 50)).toBe(0);
  });
});

describe("waitParam", () => {
  it("reads seconds from 0 to 60 and refuses anything else", () => {
    expect(waitParam([])).toBe(0);
    expect(waitParam(["0"])).toBe(0);
    expect(waitParam(["60"])).toBe(60);
    for (const bad of ["61", "-1", "1.5", "", "abc", "007"]) expect(waitParam([bad])).toBeUndefined();
    expect(waitParam(["5", "5"])).toBeUndefined();
  });
});

describe("changedBefore", () => {
  it("is true when the change comes first, false at the deadline or when the client goes", async () => {
    let fire: () => void = () => undefined;
    const changed = new Promise<void>((resolve) => {
      fire = resolve;
    });
    const pending = changedBefore(changed, Date.now() + 5_000, new AbortController().signal);
    fire();
    await expect(pending).resolves.toBe(true);

    const never = new Promise<void>(() => undefined);
    await expect(changedBefore(never, Date.now() + 20, new AbortController().signal)).resolves.toBe(false);
    const client = new AbortController();
    const gone = changedBefore(never, Date.now() + 5_000, client.signal);
    client.abort();
    await expect(gone).resolves.toBe(false);
  });
});

describe("perCopyHour", () => {
  it("takes the baseline off and scales the window to an hour and one copy", () => {
    const totals = (n: number): PhaseTotals => ({
      requests: n,
      withChanges: n,
      empty: n,
      statements: n,
      statementMs: n,
      transactions: n,
      bufferAccesses: n,
      postgresCpuMs: n,
      apiCpuMs: n,
    });
    // 300 in 30 s over 50 copies, 60 of them the baseline's: 240 * 120 / 50.
    expect(perCopyHour(totals(300), totals(60), 50, 30)).toEqual(totals(576));
    expect(perCopyHour(totals(300), meanTotals(totals(50), totals(70)), 50, 30)).toEqual(totals(576));
  });
});

describe("freshnessCutoffMs", () => {
  it("counts whole rounds of writes that a poll can still see, or all it can see when no round fits", () => {
    // 20 s window, polls every 5 s: writes up to 14 s could be seen; one round of 10 s fits.
    expect(freshnessCutoffMs(20, 5, 10)).toBe(10_000);
    expect(freshnessCutoffMs(40, 5, 10)).toBe(30_000);
    expect(freshnessCutoffMs(8, 5, 10)).toBe(2_000);
  });
});
