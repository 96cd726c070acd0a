import type { CallerTeam } from "@community/db/lists";

/** Who is calling: the user a valid access token belongs to, and that user's team (if any). */
export interface Member extends CallerTeam {
  userId: string;
  clientId: string;
  /**
   * Scopes granted by a JWT access token; null for an opaque token of the fixture format, which
   * predates scopes and keeps full read access.
   */
  scopes: ReadonlySet<string> | null;
  /** SHA-256 of the built-in authorization server's grant behind a JWT it issued; else undefined. */
  grantHash?: string;
  /** SHA-256 of the bearer token the request came with (bearerCredential): read and hashed once. */
  tokenDigest: string;
}
