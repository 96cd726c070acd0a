import { type Database } from "@community/db";
import { Inject, Injectable } from "@nestjs/common";
import { DATABASE } from "../database/database.tokens";
import type { Member } from "./member";

@Injectable()
export class AccessTokenRepository {
  constructor(@Inject(DATABASE) private readonly database: Database) {}

  /**
   * The member behind a token digest, when the token exists, is not revoked and has not expired
   * at `now`. Unknown, revoked and expired tokens are indistinguishable to the caller.
   */
  async findMemberByTokenHash(tokenHash: string, now: Date): Promise<Member | null> {
    const token = await this.database.prisma.accessToken.findFirst({
      where: {
        tokenHash,
        revokedAt: null,
        OR: [{ expiresAt: null }, { expiresAt: { gt: now } }],
      },
      select: { clientId: true, user: { select: { id: true, teamId: true } } },
    });
    return token === null
      ? null
      : { userId: token.user.id, teamId: token.user.teamId, clientId: token.clientId, scopes: null };
  }
}
