import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { calendarText, feedWindowStart, findFeedBySecretHash, readFeedEvents } from "@community/db/calendar";
// The list statements' own entry: it loads no Prisma client, which the floor does not need.
import {
  type AnyTeamList,
  ChangeNotices,
  EVENTS_LIST,
  findTokenMember,
  GUIDES_LIST,
  type KeysetPosition,
  type TeamListKey,
  type TeamListPages,
  TeamListReader,
  TeamListWalker,
} from "@community/db/lists";
import { buildLinkHeader, ifNoneMatchMatches, listEntityTag, pageOffset, paginationMeta } from "@community/domain";
import { Pool } from "pg";
import {
  type ChangesAnswer,
  changedBefore,
  changesResponse,
  closedSignal,
  pageParam,
  parseFilters,
  sendPlainPage,
  waitParam,
} from "./peer-queries";

/**
 * The floor: what node:http and pg can serve at all for the same work as the api (the same token
 * lookup SQL, the same list reader and SQL, the same mappers, JSON and headers; page mode, cursor
 * walks, filters and the changes feed with its long poll), with no framework and no cache in between. Started by the
 * benchmark with DATABASE_URL, PORT and DB_POOL_MAX.
 * Errors are bare status codes: the floor only has to be right on the benchmark's requests.
 */

const pool = new Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.DB_POOL_MAX ?? 10),
  application_name: "bench-floor",
});
const LISTS = new Map<string, TeamListPages<object>>([
  ["/v1/me/community/team/events", new TeamListReader(pool, EVENTS_LIST)],
  ["/v1/me/community/team/guides", new TeamListReader(pool, GUIDES_LIST)],
]);
/** Cursor walks and filters (contract 9.1, 9.2) with the api's statements; cursors unsigned. */
const WALKERS = new Map<string, TeamListWalker<{ id: string }, object>>([
  ["/v1/me/community/team/events", new TeamListWalker(pool, EVENTS_LIST as AnyTeamList)],
  ["/v1/me/community/team/guides", new TeamListWalker(pool, GUIDES_LIST as AnyTeamList)],
]);
/** The changes feeds (contract 9.3) with the api's statements; sync tokens unsigned. */
const CHANGES = new Map<string, AnyTeamList>([
  ["/v1/me/community/team/events/changes", EVENTS_LIST as AnyTeamList],
  ["/v1/me/community/team/guides/changes", GUIDES_LIST as AnyTeamList],
]);

/** The api's notices of committed list changes (one LISTEN connection, fanned out by team and list). */
const notices = new ChangeNotices({ url: process.env.DATABASE_URL ?? "", versions: pool });
notices.start();

/**
 * A long poll (contract 10.1) as the api holds it (ChangeWaits): a watch on the team's list before
 * each reading, then held until a notice, the end of the wait, or the client leaving.
 */
async function held(
  key: TeamListKey,
  seconds: number,
  signal: AbortSignal,
  read: () => Promise<ChangesAnswer>,
): Promise<ChangesAnswer> {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const watch = notices.watch(key);
    try {
      await watch.ready;
      const answer = await read();
      if (!answer.nothingNew || signal.aborted || Date.now() >= deadline) return answer;
      if (!(await changedBefore(watch.changed, deadline, signal))) return answer;
    } finally {
      watch.cancel();
    }
  }
}

function fail(response: ServerResponse, status: number): void {
  response.writeHead(status, { "content-type": "application/problem+json" }).end(JSON.stringify({ status }));
}

/**
 * A calendar feed (contract 11.2) from plain SQL: the feed by its secret's hash (the api's
 * statement, which also notes the fetch), then its events (the api's statement) on every request,
 * the ETag a digest of those rows, the team's name and the window: what a service without the
 * lists' versions does to revalidate. The same calendarText writes the 200. No rate limits.
 */
async function calendarFeed(request: IncomingMessage, response: ServerResponse, file: string): Promise<void> {
  const secret = file.endsWith(".ics") ? file.slice(0, -".ics".length) : "";
  const feed = await findFeedBySecretHash(pool, createHash("sha256").update(secret).digest("hex"));
  if (feed === undefined) return fail(response, 404);
  const from = feedWindowStart(new Date());
  const events = await readFeedEvents(pool, feed.teamId, from);
  const digest = createHash("sha256")
    .update(JSON.stringify([feed.teamName, from.getTime(), events]))
    .digest("base64url");
  const headers = { etag: `"${digest.slice(0, 27)}"`, "cache-control": "private", vary: "Accept-Encoding" };
  if (ifNoneMatchMatches(request.headers["if-none-match"], headers.etag)) {
    response.writeHead(304, headers).end();
    return;
  }
  const body = calendarText({ teamName: feed.teamName, uidHost: "localhost", events });
  response.writeHead(200, { ...headers, "content-type": "text/calendar; charset=utf-8" }).end(body);
}

async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const url = new URL(request.url ?? "/", "http://floor");
  if (url.pathname.startsWith("/v1/calendar-feeds/")) {
    return calendarFeed(request, response, url.pathname.slice("/v1/calendar-feeds/".length));
  }
  const reader = LISTS.get(url.pathname);
  const changes = CHANGES.get(url.pathname);
  if (reader === undefined && changes === undefined) return fail(response, 404);
  const match = /^bearer\s+(\S+)$/i.exec(request.headers.authorization ?? "");
  if (match === null) return fail(response, 401);
  const tokenHash = createHash("sha256")
    .update(match[1] as string)
    .digest("hex");
  const member = await findTokenMember(pool, tokenHash, new Date());
  if (member === undefined) return fail(response, 401);
  const teamId = member.team_id;
  if (teamId === null) return fail(response, 404);
  const page = pageParam(url.searchParams.get("page"), 1, 2_147_483_647);
  const perPage = pageParam(url.searchParams.get("per_page"), 100, 100);
  if (page === undefined || perPage === undefined) return fail(response, 400);
  if (changes !== undefined) {
    const since = url.searchParams.get("since");
    const wait = waitParam(url.searchParams.getAll("wait"));
    if (wait === undefined || (wait > 0 && since === null)) return fail(response, 400);
    const read = () => changesResponse(pool, changes, { user_id: member.user_id, team_id: teamId }, since, perPage);
    const { status, body } =
      wait === 0 ? await read() : await held({ teamId, list: changes.list }, wait, closedSignal(response), read);
    response
      .writeHead(status, {
        "cache-control": "private, no-cache",
        vary: "Authorization",
        "content-type": "application/json; charset=utf-8",
      })
      .end(body);
    return;
  }
  if (reader === undefined) return fail(response, 404);

  const walker = WALKERS.get(url.pathname);
  const cursor = url.searchParams.get("cursor");
  const spec = url.pathname.endsWith("/events") ? EVENTS_LIST : GUIDES_LIST;
  const filtered = parseFilters(spec as AnyTeamList, (name) => url.searchParams.get(name));
  if (walker !== undefined && cursor !== null) {
    const after =
      cursor === "" ? undefined : (JSON.parse(Buffer.from(cursor, "base64url").toString()) as KeysetPosition);
    const result = await walker.keysetPage(teamId, filtered?.filters ?? {}, after, perPage);
    const next = result.next === undefined ? null : Buffer.from(JSON.stringify(result.next)).toString("base64url");
    const body = JSON.stringify({
      [spec.list]: result.items,
      meta: { pagination: { per_page: perPage, next_cursor: next } },
    });
    const link =
      next === null
        ? {}
        : { link: `<${url.pathname}?cursor=${next}&per_page=${perPage}${filtered?.suffix ?? ""}>; rel="next"` };
    response
      .writeHead(200, {
        ...link,
        "cache-control": "private, no-cache",
        vary: "Authorization",
        "content-type": "application/json; charset=utf-8",
      })
      .end(body);
    return;
  }
  const pageRequest = { page, perPage };
  if (walker !== undefined && filtered !== undefined) {
    const result = await walker.filteredPage(teamId, filtered.filters, pageOffset(pageRequest), perPage);
    const pagination = paginationMeta(pageRequest, result.total);
    const variant = createHash("sha256").update(filtered.suffix).digest("base64url").slice(0, 12);
    const headers = {
      link: buildLinkHeader(url.pathname, pagination, filtered.suffix),
      "x-total-count": String(result.total),
      etag: listEntityTag(pageRequest, result.version, "identity", variant),
      "cache-control": "private, no-cache",
      vary: "Authorization",
    };
    if (ifNoneMatchMatches(request.headers["if-none-match"], headers.etag)) {
      response.writeHead(304, headers).end();
      return;
    }
    const body = JSON.stringify({ [spec.list]: result.items, meta: { pagination } });
    response.writeHead(200, { ...headers, "content-type": "application/json; charset=utf-8" }).end(body);
    return;
  }
  await sendPlainPage(response, {
    reader,
    list: spec.list,
    path: url.pathname,
    teamId,
    request: pageRequest,
    ifNoneMatch: request.headers["if-none-match"],
  });
}

const server = createServer((request, response) => {
  handle(request, response).catch(() => fail(response, 500));
});
server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === "object" && address ? address.port : ""}\n`);
});
process.once("SIGTERM", () => {
  server.close();
  void notices.stop().then(() => pool.end());
});
