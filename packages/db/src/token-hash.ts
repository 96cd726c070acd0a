import { createHash } from "node:crypto";

/**
 * The only form in which an access token is stored or looked up: the SHA-256 digest of its UTF-8
 * bytes, as 64 lower-case hex digits (the `access_tokens.token_hash` column). The seed writes it
 * and the api hashes the bearer token the same way, so both import this one function.
 */
export function hashToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}
