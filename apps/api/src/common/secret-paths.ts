/** A calendar feed's path: its last segment is the feed's secret (contract 11.2). */
const FEED_PATH = /^(\/+v1\/calendar-feeds\/)[^?#]*/i;
/** A feed secret wherever it stands (a client that put it somewhere else, say). */
const FEED_SECRET = /cal_[A-Za-z0-9_-]+/g;

/**
 * `path` with every secret it carries replaced: what the access log, a trace and a problem's
 * `instance` may show of a request's path. A calendar feed's URL is its credential.
 */
export function redactSecretPaths(path: string): string {
  return path.replace(FEED_PATH, "$1REDACTED.ics").replace(FEED_SECRET, "cal_REDACTED");
}
