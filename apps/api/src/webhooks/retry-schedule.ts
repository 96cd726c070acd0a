/**
 * The Standard Webhooks retry schedule (contract 10.2): after a notice's first attempt fails, the
 * next ones come about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h and 10 h later; about 2.5 days in all.
 */
export const STANDARD_RETRY_SCHEDULE: readonly number[] = [5, 300, 1_800, 7_200, 18_000, 36_000, 36_000, 36_000];

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3_600, d: 86_400 };

/**
 * WEBHOOK_RETRY_SCHEDULE: the delays before each retry, comma-separated, each a whole number with
 * a unit (`5s,5m,30m,2h,5h,10h,10h,10h`, the default). An operator who wants fewer or quicker
 * retries (a test, say) shortens it; its end disables the subscription.
 */
export function parseRetrySchedule(raw: string | undefined): readonly number[] {
  if (raw === undefined || raw.trim() === "") return STANDARD_RETRY_SCHEDULE;
  const delays = raw.split(",").map((part) => {
    const match = /^\s*([0-9]{1,6})([smhd])\s*$/.exec(part);
    const seconds = match === null ? Number.NaN : Number(match[1]) * (UNIT_SECONDS[match[2] as string] as number);
    if (!(seconds >= 1 && seconds <= 7 * 86_400)) {
      throw new Error(
        `WEBHOOK_RETRY_SCHEDULE must be delays such as 5s,5m,30m,2h separated by commas, each between 1s and 7d; "${part.trim()}" is not`,
      );
    }
    return seconds;
  });
  if (delays.length > 20) throw new Error("WEBHOOK_RETRY_SCHEDULE may name at most 20 retries");
  return delays;
}

/**
 * The delay before retry `retry` (1 for the first) with up to 10 % jitter either way, so that the
 * notices of many subscriptions that failed together do not come back together; undefined past
 * the schedule's end. A Retry-After the receiver sent (429, 503) replaces the scheduled delay.
 */
export function retryDelaySeconds(
  schedule: readonly number[],
  retry: number,
  retryAfterSeconds: number | null,
  random: () => number = Math.random,
): number | undefined {
  const scheduled = schedule[retry - 1];
  if (scheduled === undefined) return undefined;
  if (retryAfterSeconds !== null) return Math.min(Math.max(retryAfterSeconds, 1), 86_400);
  return Math.max(1, scheduled * (0.9 + 0.2 * random()));
}
