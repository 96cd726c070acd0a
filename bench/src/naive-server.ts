import { createHash } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { type AnyTeamList, EVENTS_LIST, filterSql, findTokenMember, GUIDES_LIST } from "@community/db/lists";
import { buildLinkHeader, pageOffset, paginationMeta } from "@community/domain";
import Fastify from "fastify";
import { Pool } from "pg";
import { changesResponse, closedSignal, pageParam, parseFilters, waitParam } from "./peer-queries";

/**
 * The naive peer: what a typical implementation of the same endpoints does, on a lean framework
 * (Fastify). Per request: the same token check, then `count(*)` over the team's items and an
 * `ORDER BY ... LIMIT ... OFFSET` page, the same JSON and Link header. No per-team counter, no
 * page boundaries, no version tag (so no 304: a revalidation gets the full 200), and cursors that
 * are offsets; a long poll on the changes feed reads the feed again every second until something
 * is new. Started by the benchmark with DATABASE_URL, PORT and DB_POOL_MAX.
 */

const pool = new Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.DB_POOL_MAX ?? 10),
  application_name: "bench-naive",
});
const app = Fastify({ logger: false });

/** The caller's member row, or the status to answer with. */
async function member(authorization: string | undefined) {
  const match = /^bearer\s+(\S+)$/i.exec(authorization ?? "");
  if (match === null) return 401;
  const tokenHash = createHash("sha256")
    .update(match[1] as string)
    .digest("hex");
  const found = await findTokenMember(pool, tokenHash, new Date());
  if (found === undefined) return 401;
  if (found.team_id === null) return 404;
  return { user_id: found.user_id, team_id: found.team_id };
}

for (const spec of [EVENTS_LIST, GUIDES_LIST] as AnyTeamList[]) {
  const path = `/v1/me/community/team/${spec.list}`;
  const pageSql = (filter: string) => `SELECT ${spec.columns} FROM ${spec.list} t JOIN accounts a ON a.id = t.account_id
    WHERE t.team_id = $1${filter} ORDER BY ${spec.sortKey} DESC, t.id LIMIT $2 OFFSET $3`;
  app.get(path, async (request, reply) => {
    const caller = await member(request.headers.authorization);
    if (typeof caller === "number") return reply.code(caller).send({ status: caller });
    const query = request.query as Record<string, unknown>;
    const param = (name: string) => (typeof query[name] === "string" ? (query[name] as string) : null);
    const page = pageParam(query.page, 1, 2_147_483_647);
    const perPage = pageParam(query.per_page, 100, 100);
    if (page === undefined || perPage === undefined) return reply.code(400).send({ status: 400 });
    // Filters as a typical implementation writes them: the same WHERE in both statements.
    const filtered = parseFilters(spec, param);
    const where = (first: number) => {
      if (filtered === undefined) return { sql: "", values: [] as unknown[] };
      const { conditions, values } = filterSql(spec, filtered.filters, first);
      return { sql: ` AND ${conditions.join(" AND ")}`, values };
    };
    // A cursor, as a typical implementation makes one: the offset of the next page, encoded.
    const cursor = param("cursor");
    const offset = cursor === null ? pageOffset({ page, perPage }) : cursor === "" ? 0 : Number(atob(cursor));
    if (!Number.isSafeInteger(offset) || offset < 0) return reply.code(400).send({ status: 400 });
    const counted = where(2);
    const paged = where(4);
    const [count, rows] = await Promise.all([
      pool.query<{ total: number }>(
        `SELECT count(*)::int AS total FROM ${spec.list} t WHERE t.team_id = $1${counted.sql}`,
        [caller.team_id, ...counted.values],
      ),
      pool.query(pageSql(paged.sql), [caller.team_id, perPage, offset, ...paged.values]),
    ]);
    const total = count.rows[0]?.total ?? 0;
    const items = rows.rows.map((row) => spec.toItem(row));
    if (cursor !== null) {
      const next = offset + perPage < total ? btoa(String(offset + perPage)) : null;
      return reply
        .header("cache-control", "private, no-cache")
        .send({ [spec.list]: items, meta: { pagination: { per_page: perPage, next_cursor: next } } });
    }
    const pageRequest = { page, perPage };
    const pagination = paginationMeta(pageRequest, total);
    return reply
      .header("link", buildLinkHeader(path, pagination, filtered?.suffix ?? ""))
      .header("x-total-count", String(total))
      .header("cache-control", "private, no-cache")
      .send({ [spec.list]: items, meta: { pagination } });
  });
  // The changes feed needs the change log: the naive peer runs the api's statements there.
  app.get(`${path}/changes`, async (request, reply) => {
    const caller = await member(request.headers.authorization);
    if (typeof caller === "number") return reply.code(caller).send({ status: caller });
    const query = request.query as Record<string, unknown>;
    const perPage = pageParam(query.per_page, 100, 100);
    if (perPage === undefined) return reply.code(400).send({ status: 400 });
    const since = typeof query.since === "string" ? query.since : null;
    const wait = waitParam(query.wait === undefined ? [] : ([] as unknown[]).concat(query.wait).map(String));
    if (wait === undefined || (wait > 0 && since === null)) return reply.code(400).send({ status: 400 });
    // A long poll as a typical implementation writes one: read, and while nothing is new, sleep a
    // second and read again, until the wait is over or the client has gone.
    const deadline = Date.now() + wait * 1000;
    const gone = closedSignal(reply.raw);
    let answer = await changesResponse(pool, spec, caller, since, perPage);
    while (answer.nothingNew && !gone.aborted && Date.now() < deadline) {
      await sleep(Math.min(1000, deadline - Date.now()), undefined, { signal: gone }).catch(() => undefined);
      if (gone.aborted) break;
      answer = await changesResponse(pool, spec, caller, since, perPage);
    }
    const { status, body } = answer;
    return reply.code(status).header("cache-control", "private, no-cache").type("application/json").send(body);
  });
}

app
  .listen({ port: Number(process.env.PORT ?? 0), host: process.env.HOST ?? "127.0.0.1" })
  .then((address) => process.stdout.write(`listening ${address}\n`));
process.once("SIGTERM", () => {
  void app.close().then(() => pool.end());
});
