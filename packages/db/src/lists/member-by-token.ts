import { listStateSql } from "./changes";
import { TEAM_LISTS } from "./lists";
import type { ListState, Queryable } from "./team-list";

/**
 * $1 token digest, $2 now: the token's member, if the token exists, with whether it is valid (not
 * revoked, not expired) and the state ("<version>.<stamp>", as positions name it) and item count
 * of each of its team's lists (team_list_stats, primary key lookups, one join per declared list), and when the user joined the
 * team and the database clock (what the changes feed checks a sync token against). The first
 * statement of every list request with an opaque token; the primary key finds the token. The
 * versions let a page, and a changes poll that nothing has touched since, be served from memory
 * with no further statement.
 */
const MEMBER_BY_TOKEN_HASH_SQL = `SELECT u.id AS user_id, u.team_id, t.client_id,
       (t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > $2)) AS valid,
       extract(epoch FROM u.team_since)::float8 AS team_since, extract(epoch FROM now())::float8 AS db_now, ${TEAM_LISTS.map(
         (_, i) => `${listStateSql(`s${i}`)} AS version_${i}, s${i}.item_count::float8 AS total_${i}`,
       ).join(", ")}
  FROM access_tokens t JOIN users u ON u.id = t.user_id
  ${TEAM_LISTS.map((spec, i) => `LEFT JOIN team_list_stats s${i} ON s${i}.team_id = u.team_id AND s${i}.list = '${spec.list}'`).join("\n  ")}
 WHERE t.token_hash = $1`;

/** The row MEMBER_BY_TOKEN_HASH_SQL selects: `version_<i>` and `total_<i>` for TEAM_LISTS[i], null without statistics. */
interface TokenMemberRow {
  user_id: string;
  team_id: string | null;
  client_id: string;
  valid: boolean;
  team_since: number;
  db_now: number;
  [listColumn: `version_${number}` | `total_${number}`]: string | number | null;
}

/** The member behind a token, with the state of each of its team's lists (null while a list has no statistics). */
export interface TokenMember {
  user_id: string;
  team_id: string | null;
  client_id: string;
  /** Not revoked and not expired at the `now` it was looked up with. */
  valid: boolean;
  lists: Record<string, ListState | null>;
  /** When the user joined their team, and the database clock at the lookup (seconds since the epoch). */
  membership: { teamSince: number; now: number };
}

/**
 * The member behind a token digest, when the token exists, is not revoked and has not expired at
 * `now`; one statement, one round trip. Unknown, revoked and expired tokens all give undefined.
 */
export async function findTokenMember(db: Queryable, tokenHash: string, now: Date): Promise<TokenMember | undefined> {
  const member = await lookUpToken(db, tokenHash, now);
  return member?.valid === true ? member : undefined;
}

/**
 * The token's member whether or not the token is valid (see `valid`), or undefined when no token
 * (of an existing user) has this digest: a revoked or expired token may become valid again (a
 * fixture reloaded with a later expiry), an unknown one only once it is inserted.
 */
export async function lookUpToken(db: Queryable, tokenHash: string, now: Date): Promise<TokenMember | undefined> {
  const { rows } = await db.query<TokenMemberRow>(MEMBER_BY_TOKEN_HASH_SQL, [tokenHash, now]);
  const row = rows[0];
  if (row === undefined) return undefined;
  const lists: Record<string, ListState | null> = {};
  TEAM_LISTS.forEach((spec, i) => {
    const version = row[`version_${i}`];
    const total = row[`total_${i}`];
    lists[spec.list] = typeof version === "string" && typeof total === "number" ? { version, total } : null;
  });
  const membership = { teamSince: row.team_since, now: row.db_now };
  return { user_id: row.user_id, team_id: row.team_id, client_id: row.client_id, valid: row.valid, lists, membership };
}
