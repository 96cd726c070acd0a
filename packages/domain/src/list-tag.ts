import type { PageRequest } from "./pagination";

/**
 * Changes whenever the JSON the mappers write changes shape, so that tags issued by an older
 * build never validate a representation this build writes differently.
 */
const REPRESENTATION_REVISION = "r1";
const TAG = new RegExp(
  `(?:W/)?"((?:0|[0-9]{1,19}\\.[0-9]{1,19}))-([0-9]{1,10})-([0-9]{1,3})-${REPRESENTATION_REVISION}(?:-(gzip|br))?"`,
  "g",
);

/** The content coding of a list page's body; each has its own tag (RFC 9110 section 8.8.3). */
export type ListContentCoding = "identity" | "gzip" | "br";

/**
 * A strong entity tag of a list page: `"<state>-<page>-<per_page>-<revision>"`, with `-gzip` or
 * `-br` after the revision for a body sent in that content coding. The state is the list's row in
 * team_list_stats as `<version>.<stamp>` ("0" without one): the database moves the version with
 * every write that can change any page of the list (items, their accounts, the total) and gives it
 * a new random stamp. A restore to an earlier point, or a failover that lost writes, hands a
 * version out again but not its stamp, so a tag never names two contents; the version alone did
 * (docs/database.md, "Positions"). The tag is known before the page is read, so a revalidation
 * costs no page query.
 */
export function listEntityTag(
  request: PageRequest,
  /** The list's state, `<version>.<stamp>` (ListState.version). */
  version: string,
  coding: ListContentCoding = "identity",
  /** A digest of the filters of a filtered page: its tag never matches the unfiltered page's. */
  variant?: string,
): string {
  const suffix = coding === "identity" ? "" : `-${coding}`;
  const filtered = variant === undefined ? "" : `-f${variant}`;
  return `"${version}-${request.page}-${request.perPage}-${REPRESENTATION_REVISION}${filtered}${suffix}"`;
}

/**
 * The list state that an If-None-Match header shows the client holding for this page: "*" for
 * `*`, the state of the first tag written for this page and page size by this build, or
 * undefined. The list statement then compares it with the list's current state, so a tag of
 * another team, an old version or another history's version never gives a 304.
 */
export function knownListVersion(
  header: string | undefined,
  request: PageRequest,
  coding: ListContentCoding = "identity",
): string | undefined {
  if (header === undefined) return undefined;
  if (header.trim() === "*") return "*";
  for (const [, version, page, perPage, tagCoding] of header.matchAll(TAG)) {
    if (Number(page) === request.page && Number(perPage) === request.perPage && (tagCoding ?? "identity") === coding) {
      return version;
    }
  }
  return undefined;
}

/**
 * If-None-Match evaluation (RFC 9110 section 13.1.2): `*` or any listed tag that matches by
 * weak comparison (W/ ignored) means the client's copy is current.
 */
export function ifNoneMatchMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const trimmed = header.trim();
  if (trimmed === "*") return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, "");
  const wanted = opaque(etag);
  return (trimmed.match(/(?:W\/)?"[^"]*"/g) ?? []).some((tag) => opaque(tag) === wanted);
}
