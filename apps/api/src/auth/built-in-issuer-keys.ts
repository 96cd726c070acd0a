import { Injectable } from "@nestjs/common";
import { OAuthKeysRepository } from "../signing-keys/oauth-keys.repository";
import type { JWK, JWTVerifyGetKey } from "./jose";
import { loadJose } from "./jose";

/** At most one reload of the keys per this interval, however many unknown `kid`s arrive. */
const RELOAD_COOLDOWN_MS = 30_000;

/**
 * The verification keys of the built-in authorization server, read from the database (where the
 * server stores them) rather than over HTTP from its own JWKS endpoint. Cached in memory; a token
 * whose `kid` is not cached makes one reload, at most every 30 s.
 */
@Injectable()
export class BuiltInIssuerKeys {
  private cached: { getKey: JWTVerifyGetKey; loadedAt: number } | undefined;
  private reloading: Promise<JWTVerifyGetKey> | undefined;

  constructor(private readonly keys: OAuthKeysRepository) {}

  readonly getKey: JWTVerifyGetKey = async (header, token) => {
    const jose = await loadJose();
    const cached = this.cached;
    if (cached === undefined) return (await this.reload())(header, token);
    try {
      return await cached.getKey(header, token);
    } catch (error) {
      if (error instanceof jose.errors.JWKSNoMatchingKey && Date.now() - cached.loadedAt >= RELOAD_COOLDOWN_MS) {
        return (await this.reload())(header, token);
      }
      throw error;
    }
  };

  private reload(): Promise<JWTVerifyGetKey> {
    this.reloading ??= (async () => {
      try {
        const jose = await loadJose();
        const getKey = jose.createLocalJWKSet({ keys: (await this.keys.publicSigningKeys()) as JWK[] });
        this.cached = { getKey, loadedAt: Date.now() };
        return getKey;
      } finally {
        this.reloading = undefined;
      }
    })();
    return this.reloading;
  }
}
