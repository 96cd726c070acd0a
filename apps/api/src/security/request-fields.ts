import type { IncomingMessage } from "node:http";
import { InvalidHostException, RepeatedHeaderException, TooManyQueryParametersException } from "./security.problems";

/**
 * Header fields the service reads as one value, and how they are spelt in a problem. Node keeps
 * the first of several Authorization, Host, Content-Type or Content-Length fields and joins the
 * others with ", ", so a proxy reading the last one would judge another request than the api does:
 * they are counted in the raw headers. List fields (Accept, Accept-Encoding, If-None-Match,
 * X-Forwarded-*) may repeat: joined, they mean what the one field would (RFC 9110 section 5.3).
 */
const SINGLE_VALUE_FIELDS = new Map([
  ["authorization", "Authorization"],
  ["proxy-authorization", "Proxy-Authorization"],
  ["host", "Host"],
  ["content-type", "Content-Type"],
  ["content-length", "Content-Length"],
  ["origin", "Origin"],
  ["sec-fetch-site", "Sec-Fetch-Site"],
]);

/**
 * The most query parameters a request may carry. node:querystring (Express's and Koa's parser)
 * keeps the first 1,000 and drops the rest in silence, so a request with more is refused whole.
 */
export const MAX_QUERY_PARAMETERS = 1_000;

/** The problem of a single-value field sent more than once, read from the raw headers. */
export function repeatedFieldProblem(
  request: IncomingMessage,
): RepeatedHeaderException | InvalidHostException | undefined {
  const raw = request.rawHeaders;
  let seen: Set<string> | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const name = (raw[i] as string).toLowerCase();
    if (!SINGLE_VALUE_FIELDS.has(name)) continue;
    seen ??= new Set();
    if (!seen.has(name)) {
      seen.add(name);
      continue;
    }
    return name === "host"
      ? new InvalidHostException("repeated")
      : new RepeatedHeaderException(SINGLE_VALUE_FIELDS.get(name) as string);
  }
  return undefined;
}

/**
 * How many parameters node:querystring would read in `url`'s query: every `&`-separated field,
 * empty ones included, as its `maxKeys` counts them.
 */
export function queryParameterCount(url: string): number {
  const start = url.indexOf("?");
  if (start === -1 || start === url.length - 1) return 0;
  let count = 1;
  for (let i = url.indexOf("&", start); i !== -1; i = url.indexOf("&", i + 1)) count += 1;
  return count;
}

/** The problem of a query that the parser could not read whole. */
export function queryLimitProblem(request: IncomingMessage): TooManyQueryParametersException | undefined {
  const count = queryParameterCount(request.url ?? "");
  return count > MAX_QUERY_PARAMETERS ? new TooManyQueryParametersException(MAX_QUERY_PARAMETERS, count) : undefined;
}
