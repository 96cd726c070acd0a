import type { ListName } from "@community/db/lists";

/** Who is calling: the user a valid access token belongs to, and that user's team (if any). */
export interface Member {
  userId: string;
  teamId: string | null;
  clientId: string;
  /**
   * Scopes granted by a JWT access token; null for an opaque token of the fixture format, which
   * predates scopes and keeps full read access.
   */
  scopes: ReadonlySet<string> | null;
  /**
   * The current version and item count of each of the team's lists, read in the token lookup's
   * statement (opaque tokens), so that a page of that version can be served from memory. Undefined
   * when the lookup did not read them (JWTs); a list is null while it has no statistics row.
   */
  lists?: Readonly<Record<ListName, ListState | null>>;
}

/** A list's version (team_list_stats) and its number of items, from one snapshot. */
export interface ListState {
  version: string;
  total: number;
}
