import type { IncomingMessage } from "node:http";
import { isIPv6 } from "node:net";
import { InvalidHostException } from "./security.problems";

/** RFC 3986 reg-name: unreserved, sub-delims and percent-encoded octets. */
const REG_NAME = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})+$/;
const PORT = /^[0-9]{0,5}$/;

/** Whether `value` is `host[:port]` (RFC 9110 section 7.2, RFC 3986 section 3.2.2-3.2.3). */
export function isValidHost(value: string): boolean {
  let port: string | undefined;
  if (value.startsWith("[")) {
    const end = value.indexOf("]");
    if (end === -1 || !isIPv6(value.slice(1, end))) return false;
    const rest = value.slice(end + 1);
    if (rest !== "" && !rest.startsWith(":")) return false;
    port = rest === "" ? undefined : rest.slice(1);
  } else {
    const colon = value.lastIndexOf(":");
    if (!REG_NAME.test(colon === -1 ? value : value.slice(0, colon))) return false;
    port = colon === -1 ? undefined : value.slice(colon + 1);
  }
  return port === undefined || (PORT.test(port) && Number(port) <= 65_535);
}

/**
 * RFC 9112 section 3.2: a request whose Host is not a valid host[:port] is answered 400 (one with
 * several is refused before, by request-fields.ts).
 */
export function hostHeaderProblem(request: IncomingMessage): InvalidHostException | undefined {
  const host = request.headers.host;
  return host === undefined || isValidHost(host) ? undefined : new InvalidHostException("malformed");
}
