import type { Database } from "@community/db";
import { lookUpToken } from "@community/db/lists";
import { Inject, Injectable } from "@nestjs/common";
import { DATABASE } from "../database/database.tokens";
import type { Member } from "./member";
import { UnknownTokenCache } from "./unknown-token-cache";

@Injectable()
export class AccessTokenRepository {
  constructor(
    @Inject(DATABASE) private readonly database: Database,
    private readonly unknown: UnknownTokenCache,
  ) {}

  /**
   * The member behind a token digest, when the token exists, is not revoked and has not expired
   * at `now`, with its team's list versions. Unknown, revoked and expired tokens are indistinguishable to the caller.
   */
  async findMemberByTokenHash(tokenHash: string, now: Date): Promise<Member | null> {
    // An unknown token refused a moment ago costs no statement (see UnknownTokenCache for the bound).
    if (this.unknown.has(tokenHash)) return null;
    // One statement (one round trip) on the hot path of every request, cached page or not: sent on
    // the pool beneath Prisma under Prisma's statement name, at half Prisma's CPU (docs/decisions.md,
    // "The token lookup on the pool").
    const listsReadAt = performance.now();
    const row = await lookUpToken(this.database.poolStatements, tokenHash, now);
    // Only digests that match no token are remembered: a revoked or expired one can come back.
    if (row === undefined) this.unknown.add(tokenHash);
    return row === undefined || !row.valid
      ? null
      : {
          userId: row.user_id,
          teamId: row.team_id,
          clientId: row.client_id,
          scopes: null,
          lists: row.lists,
          membership: row.membership,
          listsReadAt,
          tokenDigest: tokenHash,
        };
  }
}
