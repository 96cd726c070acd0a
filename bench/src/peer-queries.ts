import type { ServerResponse } from "node:http";
import {
  type AnyTeamList,
  type ChangePosition,
  ChangePositionExpiredError,
  ChangePositionUnknownError,
  currentChangePosition,
  type ListFilters,
  type Queryable,
  readChanges,
  type TeamListPages,
} from "@community/db/lists";
import {
  buildLinkHeader,
  CHANGES_WAIT,
  type ChangesEnvelope,
  ifNoneMatchMatches,
  knownListVersion,
  listEntityTag,
  type PageRequest,
  pageOffset,
  paginationMeta,
} from "@community/domain";

/**
 * What the peers (the floor, the card floor and the naive peer) share beyond the list statements:
 * the page parameters, the floor's answer to a plain page, the filters of the query (contract 9.2)
 * and the changes feed (9.3) with the api's statements. The peers only have to be right on the
 * benchmark's requests: errors are bare status codes, sync tokens are unsigned.
 */

/** `page` or `per_page`: decimal digits within 1..max, `fallback` when absent; undefined otherwise. */
export function pageParam(value: unknown, fallback: number, max: number): number | undefined {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== "string" || !/^[0-9]+$/.test(value)) return undefined;
  const number = Number(value);
  return number >= 1 && number <= max ? number : undefined;
}

/**
 * A plain page (page mode) as the floor answers it: one statement of the list's reader, then the
 * page with its Link, total and ETag, or a 304 when the caller's tag still holds. The floor and
 * the card floor both answer with it, so that they do the same work by construction.
 */
export async function sendPlainPage(
  response: ServerResponse,
  page: {
    reader: TeamListPages<object>;
    list: string;
    path: string;
    teamId: string;
    request: PageRequest;
    ifNoneMatch: string | undefined;
  },
): Promise<void> {
  const { request, ifNoneMatch } = page;
  const result = await page.reader.read({
    teamId: page.teamId,
    offset: pageOffset(request),
    limit: request.perPage,
    knownVersion: knownListVersion(ifNoneMatch, request),
  });
  const pagination = paginationMeta(request, result.total);
  const etag = listEntityTag(request, result.version);
  const headers = {
    link: buildLinkHeader(page.path, pagination),
    "x-total-count": String(result.total),
    etag,
    "cache-control": "private, no-cache",
    vary: "Authorization",
  };
  if (result.notModified || ifNoneMatchMatches(ifNoneMatch, etag)) {
    response.writeHead(304, headers).end();
    return;
  }
  const body = JSON.stringify({ [page.list]: result.items, meta: { pagination } });
  response.writeHead(200, { ...headers, "content-type": "application/json; charset=utf-8" }).end(body);
}

/** The filters of a list request, and the same filters as a query suffix for Link targets; undefined when none. */
export function parseFilters(
  spec: AnyTeamList,
  param: (name: string) => string | null,
): { filters: ListFilters; suffix: string } | undefined {
  const filters: { status?: string[]; from?: string; to?: string } = {};
  let suffix = "";
  const status = param("status");
  if (status !== null) {
    filters.status = status.split(",");
    suffix += `&status=${encodeURIComponent(status)}`;
  }
  const from = param(spec.definition.window.from);
  if (from !== null) {
    filters.from = from;
    suffix += `&${spec.definition.window.from}=${encodeURIComponent(from)}`;
  }
  const to = param(spec.definition.window.to);
  if (to !== null) {
    filters.to = to;
    suffix += `&${spec.definition.window.to}=${encodeURIComponent(to)}`;
  }
  return suffix === "" ? undefined : { filters, suffix };
}

/** The api's statement (ListChangesService): the database clock and when the caller joined their team. */
const MEMBERSHIP_SQL = `SELECT team_id, extract(epoch FROM team_since)::float8 AS team_since,
       extract(epoch FROM now())::float8 AS now
  FROM users WHERE id = $1`;

/** The api's default retention of the change log (SYNC_RETENTION_DAYS). */
const RETENTION_SECONDS = 7 * 86_400;

interface SyncClaims {
  list: string;
  team: string;
  issuedAt: number;
  position: ChangePosition;
}

const encode = (claims: SyncClaims) => Buffer.from(JSON.stringify(claims)).toString("base64url");

/** A changes response; `nothingNew` when it tells no change and no more to read (a long poll holds it). */
export interface ChangesAnswer {
  status: number;
  body: string;
  nothingNew: boolean;
}

const bare = (status: number): ChangesAnswer => ({ status, body: JSON.stringify({ status }), nothingNew: false });

/**
 * A changes request after the token lookup, with the api's statements in the api's order: the
 * caller's membership, then the current position (no `since`) or one page of the feed.
 */
export async function changesResponse(
  db: Queryable,
  spec: AnyTeamList,
  member: { user_id: string; team_id: string },
  since: string | null,
  perPage: number,
): Promise<ChangesAnswer> {
  let claims: SyncClaims | undefined;
  if (since !== null) {
    try {
      claims = JSON.parse(Buffer.from(since, "base64url").toString()) as SyncClaims;
    } catch {
      return bare(400);
    }
  }
  const { rows } = await db.query<{ team_id: string | null; team_since: number; now: number }>(MEMBERSHIP_SQL, [
    member.user_id,
  ]);
  const membership = rows[0];
  const gone = bare(410);
  if (membership === undefined || membership.team_id !== member.team_id) return gone;
  if (claims === undefined) {
    const position = await currentChangePosition(db, { list: spec.list, teamId: member.team_id });
    const next = encode({ list: spec.list, team: member.team_id, issuedAt: membership.now, position });
    return { status: 200, body: envelope([], next, false), nothingNew: false };
  }
  if (
    claims.list !== spec.list ||
    claims.team !== member.team_id ||
    claims.issuedAt < membership.now - RETENTION_SECONDS ||
    claims.issuedAt < membership.team_since
  ) {
    return gone;
  }
  try {
    const read = await readChanges(db, spec, member.team_id, claims.position, perPage);
    const issuedAt = read.hasMore ? claims.issuedAt : membership.now;
    const next = encode({ list: spec.list, team: member.team_id, issuedAt, position: read.next });
    return {
      status: 200,
      body: envelope(read.changes, next, read.hasMore),
      nothingNew: read.changes.length === 0 && !read.hasMore,
    };
  } catch (error) {
    if (error instanceof ChangePositionExpiredError || error instanceof ChangePositionUnknownError) return gone;
    throw error;
  }
}

function envelope(changes: ChangesEnvelope<unknown>["changes"], next: string, hasMore: boolean): string {
  const value: ChangesEnvelope<unknown> = { changes, meta: { sync: { next, has_more: hasMore } } };
  return JSON.stringify(value);
}

/** `wait` of a changes request (contract 10.1): seconds, 0 when absent; undefined when malformed or repeated. */
export function waitParam(values: readonly string[]): number | undefined {
  if (values.length === 0) return CHANGES_WAIT.default;
  const value = values[0] as string;
  if (values.length > 1 || !/^[0-9]{1,2}$/.test(value)) return undefined;
  const seconds = Number(value);
  return seconds <= CHANGES_WAIT.max ? seconds : undefined;
}

/** Aborts when the response is done or its connection closes first (a long poll's client gone). */
export function closedSignal(response: ServerResponse): AbortSignal {
  const controller = new AbortController();
  response.once("close", () => controller.abort());
  return controller.signal;
}

/** Resolves true when `changed` resolves, false at `deadline` (epoch ms) or when `signal` aborts. */
export function changedBefore(changed: Promise<void>, deadline: number, signal: AbortSignal): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const finish = (value: boolean) => {
      clearTimeout(timer);
      signal.removeEventListener("abort", gone);
      resolve(value);
    };
    const gone = () => finish(false);
    timer = setTimeout(gone, Math.max(0, deadline - Date.now()));
    if (signal.aborted) return finish(false);
    signal.addEventListener("abort", gone, { once: true });
    void changed.then(() => finish(true));
  });
}
