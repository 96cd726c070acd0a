import type { Database } from "@community/db";
import type { Adapter, AdapterPayload, ClientMetadata } from "./oidc-provider.types";

/**
 * oidc-provider's storage (its Adapter interface) in PostgreSQL: one row per model and id in
 * `oauth_payloads`, so sessions, grants, codes and refresh tokens survive restarts and are shared
 * by every replica, on a PostgreSQL server and on the embedded database alike. Clients are the
 * exception: they are read from `oauth_clients`, which the fixture loader fills.
 */
export function prismaAdapterFactory(database: Database): new (model: string) => Adapter {
  return class PrismaAdapter implements Adapter {
    constructor(private readonly model: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      const row = {
        payload: payload as object,
        grantId: payload.grantId ?? null,
        userCode: payload.userCode ?? null,
        uid: payload.uid ?? null,
        expiresAt: expiresIn ? new Date(Date.now() + expiresIn * 1000) : null,
      };
      await database.prisma.oAuthPayload.upsert({
        where: { model_id: { model: this.model, id } },
        create: { model: this.model, id, ...row },
        update: row,
      });
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      if (this.model === "Client") return findClient(database, id);
      return this.first({ id });
    }

    findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return this.first({ uid });
    }

    findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      return this.first({ userCode });
    }

    async consume(id: string): Promise<void> {
      await database.prisma.oAuthPayload.updateMany({
        where: { model: this.model, id },
        data: { consumedAt: new Date() },
      });
    }

    async destroy(id: string): Promise<void> {
      await database.prisma.oAuthPayload.deleteMany({ where: { model: this.model, id } });
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await database.prisma.oAuthPayload.deleteMany({ where: { model: this.model, grantId } });
    }

    private async first(where: { id?: string; uid?: string; userCode?: string }) {
      const row = await database.prisma.oAuthPayload.findFirst({
        where: { model: this.model, ...where, OR: [{ expiresAt: null }, { expiresAt: { gt: new Date() } }] },
      });
      if (row === null) return undefined;
      const payload = row.payload as AdapterPayload;
      return row.consumedAt === null ? payload : { ...payload, consumed: Math.floor(row.consumedAt.getTime() / 1000) };
    }
  };
}

/**
 * A registered client as oidc-provider metadata. A confidential client's `client_secret` holds
 * the scrypt hash, which the server compares through verifySecret (see authorization-server.ts).
 */
async function findClient(database: Database, clientId: string): Promise<ClientMetadata | undefined> {
  const client = await database.prisma.oAuthClient.findUnique({ where: { clientId } });
  if (client === null) return undefined;
  return {
    client_id: client.clientId,
    client_name: client.name,
    redirect_uris: client.redirectUris,
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    ...(client.secretHash === null
      ? { token_endpoint_auth_method: "none" }
      : { token_endpoint_auth_method: "client_secret_basic", client_secret: client.secretHash }),
  };
}
