// The same parser as packages/client/src/retry-after.ts, on purpose: the published
// client has no dependencies, and the api does not depend on the client.
// test/src/retry-after-copies.spec.ts checks that the two read every header alike.
const DAY = "(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)";
const LONG_DAY = "(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)";
const MONTH = "(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)";
const TIME = "\\d{2}:\\d{2}:\\d{2}";
/** The three HTTP-date forms a recipient must accept (RFC 9110 section 5.6.7). */
const HTTP_DATE = new RegExp(
  [
    `^${DAY}, \\d{2} ${MONTH} \\d{4} ${TIME} GMT$`, // IMF-fixdate
    `^${LONG_DAY}, \\d{2}-${MONTH}-\\d{2} ${TIME} GMT$`, // obsolete RFC 850
    `^${DAY} ${MONTH} [ \\d]\\d ${TIME} \\d{4}$`, // obsolete asctime
  ].join("|"),
);

/**
 * Seconds to wait from a receiver's Retry-After header (RFC 9110 section 10.2.3): delay-seconds
 * or an HTTP-date (0 when it has passed). Anything else is null, so that the schedule's own wait
 * applies. The same rule as the client package's, which the api does not depend on.
 */
export function parseRetryAfter(header: string | undefined, now: number = Date.now()): number | null {
  if (header === undefined) return null;
  const value = header.trim();
  if (/^[0-9]+$/.test(value)) return Number(value);
  if (!HTTP_DATE.test(value)) return null;
  // asctime carries no zone: it is GMT all the same.
  const date = Date.parse(value.endsWith("GMT") ? value : `${value} GMT`);
  if (Number.isNaN(date)) return null;
  return Math.max(0, Math.ceil((date - now) / 1000));
}
