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
