import { parseRetrySchedule, STANDARD_RETRY_SCHEDULE } from "../config/webhook-settings";
import { retryDelaySeconds } from "./retry-schedule";

describe("the webhook retry schedule", () => {
  it("is the Standard Webhooks schedule by default: about 2.5 days in 8 retries", () => {
    expect(parseRetrySchedule(undefined)).toEqual([5, 300, 1_800, 7_200, 18_000, 36_000, 36_000, 36_000]);
    expect(parseRetrySchedule("")).toBe(STANDARD_RETRY_SCHEDULE);
    const total = STANDARD_RETRY_SCHEDULE.reduce((a, b) => a + b, 0);
    expect(total / 86_400).toBeCloseTo(1.58, 1);
  });

  it("reads delays with units and refuses anything else, naming the variable and the part", () => {
    expect(parseRetrySchedule("1s, 2m,3h,1d")).toEqual([1, 120, 10_800, 86_400]);
    for (const bad of ["5", "0s", "5x", "1s,,2s", "-1s", "8d", "1.5s"]) {
      expect(() => parseRetrySchedule(bad)).toThrow(/^WEBHOOK_RETRY_SCHEDULE .*"/);
    }
    expect(() => parseRetrySchedule(Array(21).fill("1s").join(","))).toThrow(/at most 20/);
  });

  it("jitters a scheduled delay by at most 10 % and ends after the last retry", () => {
    const schedule = [100, 1_000];
    expect(retryDelaySeconds(schedule, 1, null, () => 0)).toBeCloseTo(90);
    expect(retryDelaySeconds(schedule, 1, null, () => 1)).toBeCloseTo(110);
    expect(retryDelaySeconds(schedule, 2, null, () => 0.5)).toBeCloseTo(1_000);
    expect(retryDelaySeconds(schedule, 3, null)).toBeUndefined();
  });

  it("takes a receiver's Retry-After instead of the schedule, within 1 s and a day", () => {
    expect(retryDelaySeconds([5], 1, 120)).toBe(120);
    expect(retryDelaySeconds([5], 1, 0)).toBe(1);
    expect(retryDelaySeconds([5], 1, 10 ** 9)).toBe(86_400);
    // Past the schedule's end a Retry-After does not extend it.
    expect(retryDelaySeconds([5], 2, 30)).toBeUndefined();
  });
});
