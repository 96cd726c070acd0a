/**
 * The query parameters a problem's `instance` may repeat: the list endpoints' own, which are
 * never secret. Every other parameter is left out, since a client may have put a credential in
 * the URL (`?access_token=...`) and a problem body ends up in client logs and bug reports.
 */
const ECHOED_PARAMETERS = new Set(["page", "per_page"]);

/**
 * A problem's `instance`: the request's path, and of its query only the page and per_page
 * parameters (also in bracket form, `page[]`), as sent but for the characters a URI reference
 * cannot hold, which are percent-encoded. `target` is the request target as sent.
 */
export function problemInstance(target: string): string {
  const url = originForm(target);
  const queryStart = url.indexOf("?");
  if (queryStart === -1) return toUriReference(url);
  const kept = url
    .slice(queryStart + 1)
    .split("&")
    .filter((pair) => ECHOED_PARAMETERS.has(parameterName(pair)));
  const path = toUriReference(url.slice(0, queryStart));
  return kept.length === 0 ? path : `${path}?${toUriReference(kept.join("&"))}`;
}

/**
 * The target as a path of this service: an absolute-form target (`http://other/x`) keeps its path
 * and query, and leading slashes collapse to one, so that `//other/x` cannot read as a
 * network-path reference (another host) when a client resolves `instance`.
 */
function originForm(target: string): string {
  let url = target;
  if (!url.startsWith("/")) {
    const absolute = URL.parse(url);
    url = absolute === null || absolute.host === "" ? "/" : `${absolute.pathname}${absolute.search}`;
  }
  return url.replace(/^\/{2,}/, "/");
}

/** Percent-encodes what RFC 3986 does not allow in a path or query (`[`, `]`, spaces, a stray `%`...). */
function toUriReference(text: string): string {
  return text.replace(/%(?![0-9A-Fa-f]{2})|[^A-Za-z0-9\-._~!$&'()*+,;=:@/?%]/gu, (c) => encodeURIComponent(c));
}

/** The parameter a raw `name=value` pair sets, without a bracket suffix (`page[]` -> `page`). */
function parameterName(pair: string): string {
  const equals = pair.indexOf("=");
  const raw = equals === -1 ? pair : pair.slice(0, equals);
  let name: string;
  try {
    name = decodeURIComponent(raw.replace(/\+/g, " "));
  } catch {
    return "";
  }
  const bracket = name.indexOf("[");
  return bracket === -1 ? name : name.slice(0, bracket);
}
