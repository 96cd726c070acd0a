import { RecentResult } from "./recent-result";

describe(RecentResult.name, () => {
  let now = 0;
  const clock = () => now;

  beforeEach(() => {
    now = 10_000;
  });

  it("shares one computation among callers while it runs", async () => {
    const recent = new RecentResult<number>(1_000, clock);
    let release: (value: number) => void = () => undefined;
    const compute = jest.fn(() => new Promise<number>((resolve) => (release = resolve)));
    const answers = Promise.all([recent.get(compute), recent.get(compute), recent.get(compute)]);
    now += 5_000;
    const late = recent.get(compute);
    release(7);
    expect(await answers).toEqual([7, 7, 7]);
    expect(await late).toBe(7);
    expect(compute).toHaveBeenCalledTimes(1);
  });

  it("answers from a result less than maxAgeMs old, then computes afresh", async () => {
    const recent = new RecentResult<number>(1_000, clock);
    let calls = 0;
    const compute = async () => ++calls;
    expect(await recent.get(compute)).toBe(1);
    now += 999;
    expect(await recent.get(compute)).toBe(1);
    now += 1;
    expect(await recent.get(compute)).toBe(2);
  });

  it("keeps a failure as briefly as a success", async () => {
    const recent = new RecentResult<number>(1_000, clock);
    const failing = jest.fn(async () => {
      throw new Error("down");
    });
    await expect(recent.get(failing)).rejects.toThrow("down");
    await expect(recent.get(failing)).rejects.toThrow("down");
    expect(failing).toHaveBeenCalledTimes(1);
    now += 1_000;
    expect(await recent.get(async () => 3)).toBe(3);
  });

  it("computes every time with maxAgeMs 0, sharing only what is in flight", async () => {
    const recent = new RecentResult<number>(0, clock);
    let calls = 0;
    const compute = async () => ++calls;
    expect(await recent.get(compute)).toBe(1);
    expect(await recent.get(compute)).toBe(2);
  });
});
