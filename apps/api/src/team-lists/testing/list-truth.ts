import type { Queryable } from "@community/db/lists";
import { type CurrencyCode, type Event, type Guide, priceFromMinorUnits } from "@community/domain";
import request from "supertest";
import type { App } from "supertest/types";

/**
 * What a list page must hold, computed the plain way (`ORDER BY ... LIMIT ... OFFSET` over the
 * tables, the contract's mapping written out here) rather than through the service's statements,
 * boundaries or caches, so a test can hold what the api serves against it.
 */

export type ListName = "events" | "guides";

export const LIST_PATH: Record<ListName, string> = {
  events: "/v1/me/community/team/events",
  guides: "/v1/me/community/team/guides",
};

/** Anything that runs a query: a pg Pool, Client or a test session. */
export type Sql = Queryable;

// The contract's order (section 4), ids in byte order (their column has the C collation).
const ORDER: Record<ListName, string> = {
  events: "t.scheduled_at DESC, t.id",
  guides: "t.published_at DESC NULLS FIRST, t.id",
};

const second = (at: Date | null) => (at === null ? null : `${at.toISOString().slice(0, 19)}Z`);

// biome-ignore lint/suspicious/noExplicitAny: a row of either table, mapped field by field below
type ItemRow = Record<string, any>;

function toItem(list: ListName, r: ItemRow): Event | Guide {
  const account = {
    id: r.a_id,
    slug: r.a_slug,
    name: r.a_name,
    partner: r.a_partner,
    profile_image_url: r.a_profile_image_url,
    cover_image_url: r.a_cover_image_url,
  };
  const price = priceFromMinorUnits(r.price_in_cents, String(r.currency).trim() as CurrencyCode);
  const common = { id: r.id, slug: r.slug, name: r.name, description: r.description, cover_url: r.cover_url };
  if (list === "guides") return { ...common, published_at: second(r.published_at), price, account } as Guide;
  return {
    ...common,
    duration_seconds: r.duration_seconds,
    scheduled_at: second(r.scheduled_at),
    live_at: second(r.live_at),
    completed_at: second(r.completed_at),
    canceled_at: second(r.canceled_at),
    offer_replay_purchase: r.offer_replay_purchase,
    price,
    account,
  } as Event;
}

/** The items of one page of a team's list, as the plain offset query reads them now. */
export async function expectedItems(
  sql: Sql,
  list: ListName,
  teamId: string,
  limit: number,
  offset: number,
): Promise<Array<Event | Guide>> {
  const { rows } = await sql.query<ItemRow>(
    `SELECT t.*, a.id AS a_id, a.slug AS a_slug, a.name AS a_name, a.partner AS a_partner,
            a.profile_image_url AS a_profile_image_url, a.cover_image_url AS a_cover_image_url
       FROM ${list} t JOIN accounts a ON a.id = t.account_id
      WHERE t.team_id = $1 ORDER BY ${ORDER[list]} LIMIT $2 OFFSET $3`,
    [teamId, limit, offset],
  );
  return rows.map((r) => toItem(list, r));
}

export async function expectedIds(
  sql: Sql,
  list: ListName,
  teamId: string,
  limit: number,
  offset: number,
): Promise<string[]> {
  const { rows } = await sql.query<{ id: string }>(
    `SELECT t.id FROM ${list} t WHERE t.team_id = $1 ORDER BY ${ORDER[list]} LIMIT $2 OFFSET $3`,
    [teamId, limit, offset],
  );
  return rows.map((r) => r.id);
}

export async function countItems(sql: Sql, list: ListName, teamId: string): Promise<number> {
  const { rows } = await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${list} WHERE team_id = $1`, [
    teamId,
  ]);
  return rows[0]?.n ?? 0;
}

/** The kept count and version of a team's list (team_list_stats), undefined without a row. */
export async function listStats(
  sql: Sql,
  list: ListName,
  teamId: string,
): Promise<{ count: number; version: bigint } | undefined> {
  const { rows } = await sql.query<{ n: string; v: string }>(
    "SELECT item_count::text AS n, version::text AS v FROM team_list_stats WHERE team_id = $1 AND list = $2",
    [teamId, list],
  );
  const row = rows[0];
  return row === undefined ? undefined : { count: Number(row.n), version: BigInt(row.v) };
}

/** A list response as the client sees it: identity coding, so the bytes are the JSON itself. */
export interface ListResponse {
  status: number;
  etag: string | undefined;
  total: string | undefined;
  /** The body's bytes (empty for a 304). */
  text: string;
  items: Array<Event | Guide>;
}

/** `server`: the app's server (supertest listens for each request), or the base URL of one listening already. */
export async function getList(
  server: App | string,
  list: ListName,
  token: string,
  page: number,
  perPage: number,
  ifNoneMatch?: string,
): Promise<ListResponse> {
  const sent = request(server)
    .get(`${LIST_PATH[list]}?page=${page}&per_page=${perPage}`)
    .set("Authorization", `Bearer ${token}`)
    .set("Accept-Encoding", "identity");
  if (ifNoneMatch !== undefined) sent.set("If-None-Match", ifNoneMatch);
  const response = await sent;
  const text = response.status === 304 ? "" : response.text;
  return {
    status: response.status,
    etag: response.headers.etag as string | undefined,
    total: response.headers["x-total-count"] as string | undefined,
    text,
    items: response.status === 200 ? (JSON.parse(text) as { guides: Array<Event | Guide> }).guides : [],
  };
}
