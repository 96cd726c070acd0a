import type { Database } from "@community/db";
import { Inject, Injectable } from "@nestjs/common";
import { DATABASE } from "../database/database.tokens";

@Injectable()
export class UserRepository {
  constructor(@Inject(DATABASE) private readonly database: Database) {}

  /** The user named by a JWT's `sub`, with the team it belongs to. */
  findById(userId: string): Promise<{ id: string; teamId: string | null } | null> {
    return this.database.prisma.user.findUnique({ where: { id: userId }, select: { id: true, teamId: true } });
  }
}
