import type { Queryable } from "./team-list";

/**
 * $1 token digest, $2 now: the token's member, if the token exists, with whether it is valid (not
 * revoked, not expired) and the version and item count of each of its team's lists
 * (team_list_stats, primary key lookups). The first statement of every list request with an
 * opaque token; the primary key finds the token. The versions let a page be served from memory
 * with no further statement.
 */
const MEMBER_BY_TOKEN_HASH_SQL = `SELECT u.id AS user_id, u.team_id, t.client_id,
       (t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > $2)) AS valid,
       e.version::text AS events_version, e.item_count::float8 AS events_total,
       g.version::text AS guides_version, g.item_count::float8 AS guides_total
  FROM access_tokens t JOIN users u ON u.id = t.user_id
  LEFT JOIN team_list_stats e ON e.team_id = u.team_id AND e.list = 'events'
  LEFT JOIN team_list_stats g ON g.team_id = u.team_id AND g.list = 'guides'
 WHERE t.token_hash = $1`;

/** The row MEMBER_BY_TOKEN_HASH_SQL selects; a list's columns are null while it has no statistics row. */
export interface TokenMemberRow {
  user_id: string;
  /** False for a revoked or expired token. */
  valid: boolean;
  team_id: string | null;
  client_id: string;
  events_version: string | null;
  events_total: number | null;
  guides_version: string | null;
  guides_total: number | null;
}

/**
 * The member behind a token digest, when the token exists, is not revoked and has not expired at
 * `now`; one statement, one round trip. Unknown, revoked and expired tokens all give undefined.
 */
export async function findTokenMember(
  db: Queryable,
  tokenHash: string,
  now: Date,
): Promise<TokenMemberRow | undefined> {
  const row = await lookUpToken(db, tokenHash, now);
  return row?.valid === true ? row : undefined;
}

/**
 * The token's row whether or not it is valid (see `valid`), or undefined when no token (of an
 * existing user) has this digest: a revoked or expired token may become valid again (a fixture
 * reloaded with a later expiry), an unknown one only once it is inserted.
 */
export async function lookUpToken(db: Queryable, tokenHash: string, now: Date): Promise<TokenMemberRow | undefined> {
  const { rows } = await db.query<TokenMemberRow>(MEMBER_BY_TOKEN_HASH_SQL, [tokenHash, now]);
  return rows[0];
}
