import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import {
  formatNullableTimestamp,
  formatTimestamp,
  type PageRequest,
  paginationMeta,
  priceFromMinorUnits,
} from "@community/domain";
import { Pool } from "pg";

/**
 * The floor: what node:http and pg can serve at all for the same work as the api (the same token
 * lookup, the same SQL, the same JSON and headers), with no framework in between. Started by the
 * benchmark with DATABASE_URL, PORT and DB_POOL_MAX.
 */

const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DB_POOL_MAX ?? 10) });
const PATHS = new Map([
  ["/v1/me/community/team/events", "events"],
  ["/v1/me/community/team/guides", "guides"],
] as const);

const TOKEN_SQL = `SELECT u.team_id FROM access_tokens t JOIN users u ON u.id = t.user_id
  WHERE t.token_hash = $1 AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > $2)`;

const ACCOUNT_COLUMNS = `a.id AS a_id, a.slug AS a_slug, a.name AS a_name, a.partner AS a_partner,
  a.profile_image_url AS a_profile, a.cover_image_url AS a_cover`;

const PAGE_SQL = {
  events: `SELECT e.*, ${ACCOUNT_COLUMNS} FROM events e JOIN accounts a ON a.id = e.account_id
    WHERE e.team_id = $1 ORDER BY e.scheduled_at DESC, e.id ASC LIMIT $2 OFFSET $3`,
  guides: `SELECT g.*, ${ACCOUNT_COLUMNS} FROM guides g JOIN accounts a ON a.id = g.account_id
    WHERE g.team_id = $1 ORDER BY g.published_at DESC NULLS FIRST, g.id ASC LIMIT $2 OFFSET $3`,
};

type Row = Record<string, unknown>;

const account = (r: Row) => ({
  id: r.a_id,
  slug: r.a_slug,
  name: r.a_name,
  partner: r.a_partner,
  profile_image_url: r.a_profile,
  cover_image_url: r.a_cover,
});
const price = (r: Row) => priceFromMinorUnits(r.price_in_cents as number, (r.currency as string).trim() as never);

const ITEM: Record<"events" | "guides", (row: Row) => object> = {
  events: (r: Row) => ({
    id: r.id,
    slug: r.slug,
    duration_seconds: r.duration_seconds,
    scheduled_at: formatTimestamp(r.scheduled_at as Date),
    live_at: formatNullableTimestamp(r.live_at as Date | null),
    completed_at: formatNullableTimestamp(r.completed_at as Date | null),
    canceled_at: formatNullableTimestamp(r.canceled_at as Date | null),
    offer_replay_purchase: r.offer_replay_purchase,
    name: r.name,
    description: r.description,
    cover_url: r.cover_url,
    price: price(r),
    account: account(r),
  }),
  guides: (r: Row) => ({
    id: r.id,
    slug: r.slug,
    published_at: formatNullableTimestamp(r.published_at as Date | null),
    name: r.name,
    description: r.description,
    cover_url: r.cover_url,
    price: price(r),
    account: account(r),
  }),
};

async function readPage(kind: "events" | "guides", teamId: string, request: PageRequest) {
  const client = await pool.connect();
  try {
    await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    const count = await client.query(`SELECT count(*)::int AS total FROM ${kind} WHERE team_id = $1`, [teamId]);
    const total = count.rows[0].total as number;
    const offset = (request.page - 1) * request.perPage;
    const rows = offset >= total ? [] : (await client.query(PAGE_SQL[kind], [teamId, request.perPage, offset])).rows;
    await client.query("COMMIT");
    return { total, items: rows.map(ITEM[kind]) };
  } finally {
    client.release();
  }
}

function problem(response: ServerResponse, status: number): void {
  response.writeHead(status, { "content-type": "application/problem+json" }).end(JSON.stringify({ status }));
}

function pageParam(value: string | null, fallback: number, max: number): number | undefined {
  if (value === null) return fallback;
  if (!/^[0-9]+$/.test(value)) return undefined;
  const number = Number(value);
  return number >= 1 && number <= max ? number : undefined;
}

async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const url = new URL(request.url ?? "/", "http://floor");
  const kind = PATHS.get(url.pathname as never);
  if (kind === undefined) return problem(response, 404);
  const match = /^bearer\s+(\S+)$/i.exec(request.headers.authorization ?? "");
  if (match === null) return problem(response, 401);
  const tokenHash = createHash("sha256")
    .update(match[1] as string)
    .digest("hex");
  const member = await pool.query(TOKEN_SQL, [tokenHash, new Date()]);
  if (member.rowCount === 0) return problem(response, 401);
  const teamId = member.rows[0].team_id as string | null;
  if (teamId === null) return problem(response, 404);
  const page = pageParam(url.searchParams.get("page"), 1, 2_147_483_647);
  const perPage = pageParam(url.searchParams.get("per_page"), 100, 100);
  if (page === undefined || perPage === undefined) return problem(response, 400);

  const request_ = { page, perPage };
  const { total, items } = await readPage(kind, teamId, request_);
  const pagination = paginationMeta(request_, total);
  const body = JSON.stringify({ guides: items, meta: { pagination } });
  const etag = `"${createHash("sha256").update(body).digest("base64url").slice(0, 32)}"`;
  const link = (p: number, rel: string) => `<${url.pathname}?page=${p}&per_page=${perPage}>; rel="${rel}"`;
  const links = [link(1, "first")];
  if (page > 1) links.push(link(Math.min(page - 1, Math.max(pagination.total_pages, 1)), "prev"));
  if (page < pagination.total_pages) links.push(link(page + 1, "next"));
  if (pagination.total_pages > 0) links.push(link(pagination.total_pages, "last"));
  const headers = {
    link: links.join(", "),
    "x-total-count": String(total),
    etag,
    "cache-control": "private, no-cache",
    vary: "Authorization",
  };
  if (request.headers["if-none-match"] === etag) {
    response.writeHead(304, headers).end();
    return;
  }
  response.writeHead(200, { ...headers, "content-type": "application/json; charset=utf-8" }).end(body);
}

const server = createServer((request, response) => {
  handle(request, response).catch(() => problem(response, 500));
});
server.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === "object" && address ? address.port : ""}\n`);
});
process.once("SIGTERM", () => {
  server.close();
  void pool.end();
});
