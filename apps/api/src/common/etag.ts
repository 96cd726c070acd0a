import { createHash } from "node:crypto";

/** What a list page's representation depends on besides the data: which list, team and page. */
export interface ListTagScope {
  list: "events" | "guides";
  teamId: string;
  page: number;
  perPage: number;
}

/**
 * Changes whenever the JSON the mappers write changes shape, so that tags issued by an older
 * build never validate a representation this build writes differently.
 */
const REPRESENTATION_REVISION = "1";

function digest(scope: ListTagScope, version: string): string {
  return createHash("sha256")
    .update(`${REPRESENTATION_REVISION}\n${scope.list}\n${scope.teamId}\n${scope.page}\n${scope.perPage}\n${version}`)
    .digest("base64url")
    .slice(0, 22);
}

/**
 * A strong entity tag of a list page: the list's version (which the database changes with every
 * write that can change any page of the list, including the total and the embedded accounts) and
 * a digest binding it to this team, page and page size. It is known before the page is read, so
 * a revalidation costs no page query.
 */
export function listEntityTag(scope: ListTagScope, version: string): string {
  return `"${version}.${digest(scope, version)}"`;
}

/**
 * The list version that an If-None-Match header shows the client holding for this exact page:
 * "*" for `*`, the version of the first tag issued for this scope, or undefined. A tag of another
 * page, team or build, or a forged one, does not validate.
 */
export function knownListVersion(header: string | undefined, scope: ListTagScope): string | undefined {
  if (header === undefined) return undefined;
  if (header.trim() === "*") return "*";
  for (const [, version, mac] of header.matchAll(/(?:W\/)?"([0-9]{1,19})\.([A-Za-z0-9_-]{22})"/g)) {
    if (version !== undefined && mac === digest(scope, version)) return version;
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
