import type { Database } from "@community/db";
import { Inject, Injectable } from "@nestjs/common";
import { DATABASE } from "../database/database.tokens";

/** The users table, for the bearer strategy (who is this token's user) and the sign-in pages. */
@Injectable()
export class UserRepository {
  constructor(@Inject(DATABASE) private readonly database: Database) {}

  /** The user named by a JWT's `sub`, with the team it belongs to. */
  findById(userId: string): Promise<{ id: string; teamId: string | null } | null> {
    return this.database.prisma.user.findUnique({ where: { id: userId }, select: { id: true, teamId: true } });
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
