import type { Database } from "@community/db";
import { findTokenMember } from "@community/db/lists";
import { Inject, Injectable } from "@nestjs/common";
import { DATABASE } from "../database/database.tokens";
import type { Member } from "./member";

@Injectable()
export class AccessTokenRepository {
  constructor(@Inject(DATABASE) private readonly database: Database) {}

  /**
   * The member behind a token digest, when the token exists, is not revoked and has not expired
   * at `now`, with its team's list versions. Unknown, revoked and expired tokens are indistinguishable to the caller.
   */
  async findMemberByTokenHash(tokenHash: string, now: Date): Promise<Member | null> {
    // One statement (one round trip) on the hot path of every request.
    const row = await findTokenMember(this.database.pool, tokenHash, now);
    return row === undefined
      ? null
      : {
          userId: row.user_id,
          teamId: row.team_id,
          clientId: row.client_id,
          scopes: null,
          lists: row.lists,
        };
  }
}
