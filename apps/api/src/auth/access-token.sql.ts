/**
 * $1 token digest, $2 now: the token's member, if the token exists, is not revoked and has not
 * expired. Kept apart from the repository so that the benchmark's floor server runs the same SQL.
 */
export const MEMBER_BY_TOKEN_HASH_SQL = `SELECT u.id AS user_id, u.team_id, t.client_id
  FROM access_tokens t JOIN users u ON u.id = t.user_id
 WHERE t.token_hash = $1 AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > $2)`;
