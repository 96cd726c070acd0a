import { type Database, prismaStatements } from "@community/db";
import { Inject, Injectable } from "@nestjs/common";
import { DATABASE } from "../database/database.tokens";

/** The users table, for the bearer strategy (who is this token's user) and the sign-in pages. */
@Injectable()
export class UserRepository {
  constructor(@Inject(DATABASE) private readonly database: Database) {}

  /**
   * The user named by a JWT's `sub`, with the team it belongs to; for a token of the built-in
   * server (`grantHash`: the SHA-256 of its grant id, as oauth_payloads stores it), only while that
   * grant exists and has not expired at `now`. One (prepared) statement on the primary: the user's and the
   * grant's primary keys.
   */
  async findMember(
    userId: string,
    grantHash: string | undefined,
    now: Date,
  ): Promise<{ id: string; teamId: string | null } | null> {
    const { rows } = await prismaStatements(this.database.prisma).query<{ id: string; team_id: string | null }>(
      MEMBER_SQL,
      [userId, grantHash ?? null, now],
    );
    const row = rows[0];
    return row === undefined ? null : { id: row.id, teamId: row.team_id };
  }

  /** The user's display name, for the consent page and the `name` claim. */
  findProfile(userId: string): Promise<{ id: string; name: string } | null> {
    return this.database.prisma.user.findUnique({ where: { id: userId }, select: { id: true, name: true } });
  }

  /** The scrypt hash to check a sign-in against; null when the user has no password. */
  async findPasswordHash(userId: string): Promise<string | null> {
    const user = await this.database.prisma.user.findUnique({ where: { id: userId }, select: { passwordHash: true } });
    return user?.passwordHash ?? null;
  }
}

/** $1 user id, $2 grant digest (null: no grant to check), $3 now. */
const MEMBER_SQL = `SELECT u.id, u.team_id FROM users u
 WHERE u.id = $1
   AND ($2::text IS NULL OR EXISTS (
         SELECT 1 FROM oauth_payloads g
          WHERE g.model = 'Grant' AND g.id = $2 AND (g.expires_at IS NULL OR g.expires_at > $3)))`;
