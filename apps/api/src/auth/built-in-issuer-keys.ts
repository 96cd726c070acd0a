import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from "@nestjs/common";
import { APP_CONFIG, type AppConfig } from "../config/config";
import { OAuthKeysRepository } from "../signing-keys/oauth-keys.repository";
import type { JWK, JWTVerifyGetKey } from "./jose";
import { loadJose } from "./jose";

/**
 * The verification keys of the built-in authorization server, read from the database (where the
 * server stores them) rather than over HTTP from its own JWKS endpoint. Cached in memory and read
 * again every OAUTH_KEYS_RELOAD_SECONDS, so that a retired or deleted key stops verifying on every
 * replica within that time; a token whose `kid` is not cached makes one reload at most as often.
 */
@Injectable()
export class BuiltInIssuerKeys implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(BuiltInIssuerKeys.name);
  private readonly reloadMs: number;
  private cached: { getKey: JWTVerifyGetKey; loadedAt: number } | undefined;
  private reloading: Promise<JWTVerifyGetKey> | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly keys: OAuthKeysRepository,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.reloadMs = config.oauth.keysReloadSeconds * 1000;
  }

  onModuleInit(): void {
    this.timer = setInterval(() => {
      // Only a loaded set is kept fresh; a failed read keeps the last one (the database may be down).
      if (this.cached === undefined) return;
      this.reload().catch((error: unknown) => {
        this.logger.warn(`cannot reload the signing keys: ${(error as Error).message}`);
      });
    }, this.reloadMs);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  readonly getKey: JWTVerifyGetKey = async (header, token) => {
    const jose = await loadJose();
    const cached = this.cached;
    if (cached === undefined) return (await this.reload())(header, token);
    try {
      return await cached.getKey(header, token);
    } catch (error) {
      if (error instanceof jose.errors.JWKSNoMatchingKey && Date.now() - cached.loadedAt >= this.reloadMs) {
        return (await this.reload())(header, token);
      }
      throw error;
    }
  };

  /** Reads the published keys again (retired and deleted ones drop out); one read at a time. */
  reload(): Promise<JWTVerifyGetKey> {
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
