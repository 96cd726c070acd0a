import { hashToken } from "@community/db";
import { Injectable } from "@nestjs/common";
import { OAuthClientRepository } from "./oauth-client.repository";
import { OAuthPayloadRepository } from "./oauth-payload.repository";
import type { Adapter, AdapterPayload } from "./oidc-provider.types";

/**
 * oidc-provider's storage (its Adapter interface, one instance per model) over the payload and
 * client repositories, on a PostgreSQL server and on the embedded database alike. Clients are
 * read from `oauth_clients`; every other model lives in `oauth_payloads`.
 *
 * The provider's id of a refresh token, an authorization code or a session IS the token (or the
 * cookie): rows are stored under its SHA-256 and without the `jti` member, which is put back from
 * the id the provider looks up. Someone who reads the table cannot use what is in it.
 */
@Injectable()
export class OAuthPayloadAdapter {
  constructor(
    private readonly payloads: OAuthPayloadRepository,
    private readonly clients: OAuthClientRepository,
  ) {}

  /**
   * The class oidc-provider instantiates per model (its `adapter` setting). `alreadyConsumed`
   * makes the provider's own error for a code or refresh token that another request consumed.
   */
  adapterClass(alreadyConsumed: (description: string) => Error): new (model: string) => Adapter {
    const { payloads, clients } = this;
    return class PayloadAdapter implements Adapter {
      constructor(private readonly model: string) {}

      upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
        const { jti: _secret, ...stored } = payload;
        return payloads.upsert(this.model, hashToken(id), withoutSessionCookie(stored), expiresIn);
      }

      async find(id: string): Promise<AdapterPayload | undefined> {
        if (this.model === "Client") return clients.findMetadata(id);
        const payload = await payloads.findLive(this.model, { id: hashToken(id) });
        return payload === undefined ? undefined : withJti(payload, id);
      }

      findByUid(uid: string): Promise<AdapterPayload | undefined> {
        return payloads.findLive(this.model, { uid });
      }

      findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
        return payloads.findLive(this.model, { userCode });
      }

      /**
       * The provider reads a code (or refresh token), checks it is unconsumed, then consumes it:
       * concurrent requests all pass the check. Only one wins the conditional update; the others
       * are answered as a reuse (invalid_grant) and revoke the grant, as a sequential reuse does.
       */
      async consume(id: string): Promise<void> {
        if (await payloads.consume(this.model, hashToken(id))) return;
        await payloads.revokeGrantOf(this.model, hashToken(id));
        throw alreadyConsumed(`${this.model} already consumed`);
      }

      destroy(id: string): Promise<void> {
        return payloads.destroy(this.model, hashToken(id));
      }

      revokeByGrantId(grantId: string): Promise<void> {
        return payloads.revokeByGrantId(this.model, grantId);
      }
    };
  }
}

/**
 * A pending interaction names its session by the session's cookie, which the provider never reads
 * back (it binds the interaction by the session's uid): stored as its hash, the session row's id.
 */
function withoutSessionCookie(payload: AdapterPayload): AdapterPayload {
  const session = payload.session as { cookie?: unknown } | undefined;
  if (typeof session?.cookie !== "string") return payload;
  return { ...payload, session: { ...session, cookie: hashToken(session.cookie) } } as AdapterPayload;
}

/**
 * Rows found by uid (sessions, for binding checks that only read them) come back without `jti`;
 * the provider saves only sessions it found by id (its cookie), which get their `jti` back here.
 */
function withJti(payload: AdapterPayload, id: string): AdapterPayload {
  return { ...payload, jti: id };
}
