import { isIPv6 } from "node:net";

/**
 * The webhooks' settings as the environment gives them (WEBHOOK_ALLOWED_HOSTS,
 * WEBHOOK_RETRY_SCHEDULE), read by loadConfig and used by apps/api/src/webhooks: the readers
 * throw an Error whose message names the variable and what it cannot read.
 */

/**
 * Hosts an operator allows (`WEBHOOK_ALLOWED_HOSTS`), spelled as `URL.hostname` spells them:
 * lowercase, IPv4 in dotted decimal, IPv6 compressed and in brackets. An allowed host may be
 * reached over http and at any address.
 */
export type AllowedHosts = ReadonlySet<string>;

const ALLOWED_HOSTS_MESSAGE =
  "WEBHOOK_ALLOWED_HOSTS must be a comma-separated list of host names or IP addresses, without scheme, port or path";

/** Reads `WEBHOOK_ALLOWED_HOSTS`; throws an Error naming the variable and the entry it cannot read. */
export function parseAllowedHosts(raw: string | undefined): AllowedHosts {
  const hosts = new Set<string>();
  for (const entry of (raw ?? "").split(",").map((part) => part.trim())) {
    if (entry === "") continue;
    const host = canonicalHost(entry);
    if (host === undefined) throw new Error(`${ALLOWED_HOSTS_MESSAGE}; not understood: "${entry}"`);
    hosts.add(host);
  }
  return hosts;
}

/** An entry as the WHATWG URL parser spells its host (`0x7f.1` -> `127.0.0.1`, `::1` -> `[::1]`), or undefined. */
function canonicalHost(entry: string): string | undefined {
  const bracketed = isIPv6(entry) ? `[${entry}]` : entry;
  // A colon outside an IPv6 literal is a port; the others would start a path, query, fragment or user.
  const port = bracketed.startsWith("[") ? !bracketed.endsWith("]") : bracketed.includes(":");
  if (port || /[/?#@\\\s]/.test(bracketed)) return undefined;
  const url = URL.parse(`http://${bracketed}/`);
  if (url === null || url.host !== url.hostname || url.pathname !== "/") return undefined;
  return url.hostname.startsWith("[") || /^[a-z0-9_.-]+$/.test(url.hostname) ? url.hostname : undefined;
}

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
