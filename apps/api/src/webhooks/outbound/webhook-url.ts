import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { isIP, type LookupFunction } from "node:net";
import ipaddr from "ipaddr.js";
import type { AllowedHosts } from "../../config/webhook-settings";

/** The longest webhook URL accepted, in characters. */
export const WEBHOOK_URL_MAX_LENGTH = 2048;

/**
 * The syntax and policy of a webhook URL, without any network access: a string of at most
 * {@link WEBHOOK_URL_MAX_LENGTH} characters, absolute, and within {@link urlPolicyProblem}. A
 * problem is a message for the `url` field; it names at most the URL's host, never the rest.
 */
export function checkWebhookUrl(raw: unknown, allowedHosts: AllowedHosts): { url: URL } | { problem: string } {
  if (typeof raw !== "string") return { problem: "must be a string" };
  if (raw.length > WEBHOOK_URL_MAX_LENGTH) return { problem: `must be at most ${WEBHOOK_URL_MAX_LENGTH} characters` };
  const url = URL.parse(raw);
  if (url === null) return { problem: "must be an absolute URL" };
  const problem = urlPolicyProblem(url, allowedHosts);
  return problem === null ? { url } : { problem };
}

/**
 * What the policy refuses in a parsed URL, or null: a scheme other than https (http is allowed for
 * an allowed host), a user name or password, a fragment, no host, or a host that is an IP literal
 * in a refused range (unless allowed). Checked again before each delivery, as the allowed hosts
 * may have changed since the URL was stored.
 */
export function urlPolicyProblem(url: URL, allowedHosts: AllowedHosts): string | null {
  const allowed = allowedHosts.has(url.hostname);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && allowed)) return "must use https";
  if (url.username !== "" || url.password !== "") return "must not contain a user name or password";
  // `hash` is empty for a bare trailing "#" too; the serialization keeps it.
  if (url.href.includes("#")) return "must not have a fragment";
  if (url.hostname === "") return "must name a host";
  const address = ipLiteral(url);
  const range = address === undefined || allowed ? null : refusedAddress(address);
  return range === null ? null : `must not name an address in the ${range} range (${url.hostname})`;
}

/** The IP address a URL's host names literally (without brackets), or undefined for a host name. */
function ipLiteral(url: URL): string | undefined {
  const host = connectHost(url);
  return isIP(host) === 0 ? undefined : host;
}

/** The host as node:net expects it: an IPv6 literal without its brackets. */
export function connectHost(url: URL): string {
  return url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
}

// ipaddr.js names its ranges in camelCase; the messages use the usual words.
const RANGE_NAMES: Readonly<Record<string, string>> = {
  carrierGradeNat: "carrier-grade NAT",
  linkLocal: "link-local",
  uniqueLocal: "unique-local",
  deprecatedSiteLocal: "site-local",
  rfc6145: "IPv4-translated",
  rfc6052: "NAT64",
  teredo: "Teredo",
};
const NAT64 = ipaddr.parseCIDR("64:ff9b::/96");
const GLOBAL_UNICAST = ipaddr.parseCIDR("2000::/3");

/**
 * The name of the range for which an address must not be connected to, or null for a public
 * unicast address. IPv4 must be ordinary unicast; IPv6 must be ordinary global unicast (2000::/3
 * outside every special range, which refuses IPv4-compatible, 6to4 and Teredo forms outright),
 * except that an IPv4-mapped or NAT64 (64:ff9b::/96) address is judged by the IPv4 it carries.
 * Anything that is not an IP address in its plain spelling is refused.
 */
export function refusedAddress(ip: string): string | null {
  if (isIP(ip) === 0) return "malformed";
  const address = ipaddr.parse(ip);
  if (address instanceof ipaddr.IPv4) return rangeName(address.range());
  if (address.isIPv4MappedAddress()) return embedded(address.toIPv4Address(), "IPv4-mapped");
  if (address.match(NAT64)) return embedded(new ipaddr.IPv4(address.toByteArray().slice(12)), "NAT64");
  const range = address.range();
  if (range !== "unicast") return rangeName(range);
  return address.match(GLOBAL_UNICAST) ? null : "reserved";
}

function embedded(v4: ipaddr.IPv4, form: string): string | null {
  const range = rangeName(v4.range());
  return range === null ? null : `${form} ${range}`;
}

function rangeName(range: string): string | null {
  return range === "unicast" ? null : (RANGE_NAMES[range] ?? range);
}

/**
 * At creation: resolves the URL's host (every address) and returns the problem when one of them
 * is refused, or null. A host that does not resolve is not a policy problem (null): the ping that
 * follows cannot reach it and reports that. An allowed host is not resolved.
 */
export async function resolveAndCheck(
  url: URL,
  allowedHosts: AllowedHosts,
  lookup: LookupFunction = dnsLookup,
): Promise<string | null> {
  if (allowedHosts.has(url.hostname)) return null;
  const literal = ipLiteral(url);
  const addresses = literal === undefined ? await lookupAll(lookup, url.hostname) : [literal];
  for (const address of addresses) {
    const range = refusedAddress(address);
    if (range !== null) return `must not resolve to an address in the ${range} range (${url.hostname} does)`;
  }
  return null;
}

function lookupAll(lookup: LookupFunction, hostname: string): Promise<string[]> {
  return new Promise((resolve) => {
    lookup(hostname, { all: true }, (error, answer) => {
      if (error !== null) resolve([]);
      else resolve(typeof answer === "string" ? [answer] : answer.map((entry: LookupAddress) => entry.address));
    });
  });
}
