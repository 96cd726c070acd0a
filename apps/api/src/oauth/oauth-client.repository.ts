import type { Database } from "@community/db";
import { Inject, Injectable } from "@nestjs/common";
import { DATABASE } from "../database/database.tokens";
import type { ClientMetadata } from "./oidc-provider.types";

/** `oauth_clients`, which the fixture loader fills: the registered clients as oidc-provider metadata. */
@Injectable()
export class OAuthClientRepository {
  constructor(@Inject(DATABASE) private readonly database: Database) {}

  /**
   * A confidential client's `client_secret` holds the scrypt hash, which the server compares
   * through verifySecret (see authorization-server.ts).
   */
  async findMetadata(clientId: string): Promise<ClientMetadata | undefined> {
    const client = await this.database.prisma.oAuthClient.findUnique({ where: { clientId } });
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
}
