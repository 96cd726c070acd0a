import { createHash } from "node:crypto";
import { type AnyTeamList, EVENTS_LIST, filterSql, findTokenMember, GUIDES_LIST } from "@community/db/lists";
import { buildLinkHeader, pageOffset, paginationMeta } from "@community/domain";
import Fastify from "fastify";
import { Pool } from "pg";

/**
 * The naive peer: what a typical implementation of the same endpoints does, on a lean framework
 * (Fastify). Per request: the same token check, then `count(*)` over the team's items and an
 * `ORDER BY ... LIMIT ... OFFSET` page, the same JSON and Link header. No per-team counter, no
 * page boundaries, no version tag (so no 304: a revalidation gets the full 200). Started by the
 * benchmark with DATABASE_URL, PORT and DB_POOL_MAX.
 */

const pool = new Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.DB_POOL_MAX ?? 10),
  application_name: "bench-naive",
});
const app = Fastify({ logger: false });

const pageParam = (value: unknown, fallback: number, max: number): number | undefined => {
  if (value === undefined) return fallback;
  if (typeof value !== "string" || !/^[0-9]+$/.test(value)) return undefined;
  const number = Number(value);
  return number >= 1 && number <= max ? number : undefined;
};

for (const spec of [EVENTS_LIST, GUIDES_LIST] as const) {
  const path = `/v1/me/community/team/${spec.list}`;
  const countSql = `SELECT count(*)::int AS total FROM ${spec.list} WHERE team_id = $1`;
  const pageSql = `SELECT ${spec.columns} FROM ${spec.list} t JOIN accounts a ON a.id = t.account_id
    WHERE t.team_id = $1 ORDER BY ${spec.sortKey} DESC, t.id LIMIT $2 OFFSET $3`;
  app.get(path, async (request, reply) => {
    const match = /^bearer\s+(\S+)$/i.exec(request.headers.authorization ?? "");
    if (match === null) return reply.code(401).send({ status: 401 });
    const tokenHash = createHash("sha256")
      .update(match[1] as string)
      .digest("hex");
    const member = await findTokenMember(pool, tokenHash, new Date());
    if (member === undefined) return reply.code(401).send({ status: 401 });
    if (member.team_id === null) return reply.code(404).send({ status: 404 });
    const query = request.query as Record<string, unknown>;
    const page = pageParam(query.page, 1, 2_147_483_647);
    const perPage = pageParam(query.per_page, 100, 100);
    if (page === undefined || perPage === undefined) return reply.code(400).send({ status: 400 });
    const pageRequest = { page, perPage };
    // A status filter, as a typical implementation writes it: the same WHERE in both statements.
    const status = typeof query.status === "string" ? query.status.split(",") : undefined;
    const filter = status === undefined ? "" : filterSql(spec as AnyTeamList, { status }, 4).conditions.join(" AND ");
    const [count, rows] = await Promise.all([
      pool.query<{ total: number }>(
        filter === ""
          ? countSql
          : `SELECT count(*)::int AS total FROM ${spec.list} t WHERE t.team_id = $1 AND ${filter}`,
        [member.team_id],
      ),
      pool.query(
        filter === "" ? pageSql : pageSql.replace("WHERE t.team_id = $1", `WHERE t.team_id = $1 AND ${filter}`),
        [member.team_id, perPage, pageOffset(pageRequest)],
      ),
    ]);
    const total = count.rows[0]?.total ?? 0;
    const pagination = paginationMeta(pageRequest, total);
    // biome-ignore lint/suspicious/noExplicitAny: the row type belongs to the spec of the route's list
    const items = rows.rows.map((row) => spec.toItem(row as any));
    return reply
      .header("link", buildLinkHeader(path, pagination))
      .header("x-total-count", String(total))
      .header("cache-control", "private, no-cache")
      .send({ guides: items, meta: { pagination } });
  });
}

app
  .listen({ port: Number(process.env.PORT ?? 0), host: process.env.HOST ?? "127.0.0.1" })
  .then((address) => process.stdout.write(`listening ${address}\n`));
process.once("SIGTERM", () => {
  void app.close().then(() => pool.end());
});
