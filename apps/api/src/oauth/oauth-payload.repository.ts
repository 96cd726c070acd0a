import { type Database, hashToken } from "@community/db";
import { Inject, Injectable } from "@nestjs/common";
import { DATABASE } from "../database/database.tokens";
import type { AdapterPayload } from "./oidc-provider.types";

/** The models issued under a grant that oidc-provider revokes with it. */
const GRANT_TOKEN_MODELS = ["AuthorizationCode", "RefreshToken", "AccessToken"] as const;

export type PayloadLookup = { id: string } | { uid: string } | { userCode: string };

/**
 * `oauth_payloads`: one row per oidc-provider model and id (sessions, interactions, grants, codes,
 * refresh tokens), so they survive restarts and are shared by every replica.
 */
@Injectable()
export class OAuthPayloadRepository {
  constructor(@Inject(DATABASE) private readonly database: Database) {}

  async upsert(model: string, id: string, payload: AdapterPayload, expiresInSeconds: number): Promise<void> {
    const row = {
      payload: payload as object,
      grantId: payload.grantId ?? null,
      userCode: payload.userCode ?? null,
      uid: payload.uid ?? null,
      expiresAt: expiresInSeconds ? new Date(Date.now() + expiresInSeconds * 1000) : null,
    };
    await this.database.prisma.oAuthPayload.upsert({
      where: { model_id: { model, id } },
      create: { model, id, ...row },
      update: row,
    });
  }

  /** The payload unless it expired; a consumed one carries `consumed` (epoch seconds). */
  async findLive(model: string, lookup: PayloadLookup): Promise<AdapterPayload | undefined> {
    const row = await this.database.prisma.oAuthPayload.findFirst({
      where: { model, ...lookup, OR: [{ expiresAt: null }, { expiresAt: { gt: new Date() } }] },
    });
    if (row === null) return undefined;
    const payload = row.payload as AdapterPayload;
    return row.consumedAt === null ? payload : { ...payload, consumed: Math.floor(row.consumedAt.getTime() / 1000) };
  }

  /**
   * Marks the payload consumed in one conditional UPDATE, so that of concurrent requests exactly
   * one wins; false when it was consumed (or removed) already.
   */
  async consume(model: string, id: string): Promise<boolean> {
    const won = await this.database.prisma.$queryRaw<{ id: string }[]>`
      UPDATE oauth_payloads SET consumed_at = now()
      WHERE model = ${model} AND id = ${id} AND consumed_at IS NULL
      RETURNING id`;
    return won.length === 1;
  }

  /**
   * Revokes the grant a payload belongs to (rows are stored under the hash of their id, see
   * OAuthPayloadAdapter): the grant itself and every code and refresh token
   * issued under it, as oidc-provider does when a code or refresh token is used twice.
   */
  async revokeGrantOf(model: string, id: string): Promise<void> {
    const row = await this.database.prisma.oAuthPayload.findUnique({
      where: { model_id: { model, id } },
      select: { grantId: true },
    });
    const grantId = row?.grantId;
    if (grantId === null || grantId === undefined) return;
    // One model at a time, with the same statements as the provider's own revocation, which may
    // run at the same time for this grant: identical deletes queue on each other instead of
    // locking the same rows in different orders (a deadlock).
    for (const tokenModel of GRANT_TOKEN_MODELS) await this.revokeByGrantId(tokenModel, grantId);
    await this.destroy("Grant", hashToken(grantId));
  }

  async destroy(model: string, id: string): Promise<void> {
    await this.database.prisma.oAuthPayload.deleteMany({ where: { model, id } });
  }

  async revokeByGrantId(model: string, grantId: string): Promise<void> {
    await this.database.prisma.oAuthPayload.deleteMany({ where: { model, grantId } });
  }

  /**
   * Deletes up to `limit` expired rows. Rows another sweeper (replica) holds are skipped, not
   * waited for, so concurrent sweeps neither block each other nor count a row twice.
   */
  deleteExpired(limit: number): Promise<number> {
    return this.database.prisma.$executeRaw`
      DELETE FROM oauth_payloads WHERE ctid IN (
        SELECT ctid FROM oauth_payloads WHERE expires_at < now() LIMIT ${limit} FOR UPDATE SKIP LOCKED
      )`;
  }
}
