import type { Queryable } from "./team-list";

/**
 * $1 token digest, $2 now: the token's member, if the token exists, is not revoked and has not
 * expired. The first statement of every list request with an opaque token; the primary key finds
 * the token.
 */
const MEMBER_BY_TOKEN_HASH_SQL = `SELECT u.id AS user_id, u.team_id, t.client_id
  FROM access_tokens t JOIN users u ON u.id = t.user_id
 WHERE t.token_hash = $1 AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > $2)`;

/** The row MEMBER_BY_TOKEN_HASH_SQL selects. */
export interface TokenMemberRow {
  user_id: string;
  team_id: string | null;
  client_id: string;
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
  const { rows } = await db.query<TokenMemberRow>(MEMBER_BY_TOKEN_HASH_SQL, [tokenHash, now]);
  return rows[0];
}
