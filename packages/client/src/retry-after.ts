// The same parser as apps/api/src/webhooks/outbound/retry-after.ts, on purpose: the published
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
 * Seconds to wait from a Retry-After header (RFC 9110 section 10.2.3): delay-seconds (digits
 * only) or an HTTP-date. Anything else (a negative or fractional number, a date in another
 * format) is undefined, so that the caller falls back to its own wait instead of retrying at once.
 */
export function parseRetryAfter(header: string | null, now: number = Date.now()): number | undefined {
  if (header === null) return undefined;
  const value = header.trim();
  if (/^[0-9]+$/.test(value)) return Number(value);
  if (!HTTP_DATE.test(value)) return undefined;
  // asctime carries no zone: it is GMT all the same.
  const date = Date.parse(/GMT$/.test(value) ? value : `${value} GMT`);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now) / 1000));
}
