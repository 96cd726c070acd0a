import type { IncomingMessage, ServerResponse } from "node:http";
import { isDatabaseUnavailableError, verifySecret } from "@community/db";
import { CALENDAR_SCOPE, READ_SCOPE, WEBHOOKS_SCOPE } from "@community/domain";
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from "@nestjs/common";
import { GRANT_ID_CLAIM } from "../auth/jwt-access-token.verifier";
import { APP_CONFIG, type AppConfig, type OAuthConfig } from "../config/config";
import {
  type AuthorizationServerKeys,
  OAuthKeysRepository,
  SIGNING_ALGORITHM,
  signingKidAt,
} from "../signing-keys/oauth-keys.repository";
import { UserRepository } from "../users/user.repository";
import { errorPage, PAGE_CONTENT_SECURITY_POLICY, signedOutPage, signOutPage } from "./interaction-pages";
import { OAuthPayloadAdapter } from "./oauth-payload.adapter";
import type { Configuration, Provider } from "./oidc-provider.types";

/** Path prefix of every route of the authorization server (issuer = PUBLIC_URL + this). */
export const OAUTH_PREFIX = "/oauth";

type RequestHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

interface Running {
  provider: Provider;
  handle: RequestHandler;
  /** Which keys it was built with: a change of the stored set builds a new provider. */
  keySet: string;
}

/**
 * The oidc-provider instance, created on first use: its keys live in the database, which may still
 * be down when the api starts (then /oauth answers 503 until it is up; see
 * bootstrap/prepare-database.ts). A failed start is tried again by the next request. The stored
 * keys are read again every OAUTH_KEYS_RELOAD_SECONDS; when the set changed (a rotation, a retired
 * or deleted key), a provider with the new set replaces the running one, so the JWKS and the
 * signing key follow the table on every replica without a restart.
 */
@Injectable()
export class AuthorizationServer implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(AuthorizationServer.name);
  private starting: Promise<Running> | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly keys: OAuthKeysRepository,
    private readonly storage: OAuthPayloadAdapter,
    private readonly users: UserRepository,
  ) {}

  async provider(): Promise<Provider> {
    return (await this.running()).provider;
  }

  /** The provider's request handler (Koa's callback), made once per provider. */
  async handler(): Promise<RequestHandler> {
    return (await this.running()).handle;
  }

  /** Builds a provider with the stored keys if they are not the running provider's. */
  async reloadKeys(): Promise<void> {
    const keys = await this.keys.loadOrCreate();
    const current = await this.starting?.catch(() => undefined);
    if (current !== undefined && current.keySet === keySetOf(keys)) return;
    const next = this.build(keys);
    await next;
    this.starting = next;
  }

  /** Starts with the app when the database answers, so a misconfiguration stops the start. */
  async onApplicationBootstrap(): Promise<void> {
    await this.provider().catch((error: unknown) => {
      if (!isDatabaseUnavailableError(error)) throw error;
    });
    this.timer = setInterval(() => {
      this.reloadKeys().catch((error: unknown) => {
        this.logger.warn(`cannot reload the signing keys: ${(error as Error).message}`);
      });
    }, this.config.oauth.keysReloadSeconds * 1000);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  private running(): Promise<Running> {
    this.starting ??= this.keys
      .loadOrCreate()
      .then((keys) => this.build(keys))
      .catch((error: unknown) => {
        this.starting = undefined;
        throw error;
      });
    return this.starting;
  }

  private async build(keys: AuthorizationServerKeys): Promise<Running> {
    const provider = await createAuthorizationServer(this.config, { storage: this.storage, users: this.users }, keys);
    return { provider, handle: provider.callback() as unknown as RequestHandler, keySet: keySetOf(keys) };
  }
}

function keySetOf(keys: AuthorizationServerKeys): string {
  return JSON.stringify([keys.signing.map((key) => [key.jwk.kid, key.activatesAt, key.retiresAt]), keys.cookies]);
}

export interface AuthorizationServerDependencies {
  storage: OAuthPayloadAdapter;
  users: UserRepository;
}

/**
 * The built-in authorization server: oidc-provider (an OpenID-certified implementation) with
 * the authorization-code grant only, PKCE (S256) required of every client, JWT access tokens
 * (RFC 9068) for the api's audience, rotating refresh tokens and RFC 7009 revocation.
 */
export async function createAuthorizationServer(
  config: AppConfig,
  { storage, users }: AuthorizationServerDependencies,
  keys: AuthorizationServerKeys,
): Promise<Provider> {
  const oauth = config.oauth;
  const builtIn = oauth.builtIn;
  if (builtIn === undefined) throw new Error("the built-in authorization server is disabled (AUTH_SERVER=false)");
  // ESM-only, and it must stay a real import() (TypeScript's node16 module mode and the test transform keep it).
  const { default: ProviderClass, errors } = await import("oidc-provider");

  const configuration: Configuration = {
    adapter: storage.adapterClass((description) => new errors.InvalidGrant(description)),
    // Every published key: the one signing now, one that will (rotation) and ones retiring.
    jwks: { keys: keys.signing.map((key) => key.jwk) as NonNullable<Configuration["jwks"]>["keys"] },
    cookies: { keys: keys.cookies },
    clientDefaults: {
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      id_token_signed_response_alg: SIGNING_ALGORITHM,
    },
    responseTypes: ["code"],
    scopes: ["openid", "offline_access", READ_SCOPE, WEBHOOKS_SCOPE, CALENDAR_SCOPE],
    claims: { openid: ["sub"], profile: ["name"] },
    findAccount: async (_ctx, sub) => {
      const user = await users.findProfile(sub);
      return user === null ? undefined : { accountId: user.id, claims: () => ({ sub: user.id, name: user.name }) };
    },
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      // The same minimal pages as the sign-in, instead of the defaults that load web fonts.
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: (ctx, form) => sendPage(ctx, signOutPage(ctx.host, form)),
        postLogoutSuccessSource: (ctx) => sendPage(ctx, signedOutPage()),
      },
      revocation: {
        enabled: true,
        // RFC 7009 section 2.1: a client revokes only tokens issued to it. A public client asking
        // for another's is answered as if the token were unknown (it proves no identity), a
        // confidential one is told it may not.
        allowedPolicy: async (_ctx, client, token) => {
          if (token.clientId === client.clientId) return true;
          if (client.clientAuthMethod === "none") return false;
          throw new errors.InvalidRequest("client is not authorized to revoke the presented token");
        },
      },
      resourceIndicators: {
        enabled: true,
        // Clients need not send `resource`: every token is for the api.
        defaultResource: () => builtIn.audience,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => {
          if (resource !== builtIn.audience) throw new errors.InvalidTarget();
          return {
            scope: `${READ_SCOPE} ${WEBHOOKS_SCOPE} ${CALENDAR_SCOPE}`,
            audience: builtIn.audience,
            accessTokenTTL: oauth.accessTokenTtlSeconds,
            accessTokenFormat: "jwt",
            // Chosen per token, so that a rotated key starts signing at its activation time.
            jwt: { sign: { alg: SIGNING_ALGORITHM, kid: signingKidAt(keys.signing, new Date()) } },
          };
        },
      },
    },
    // The grant an access token was issued under, which the api checks on every request (it must
    // still exist: revocation, sign-out and a reused code delete it), so that revoking a grant
    // refuses its JWT access tokens at once instead of when they expire.
    // Revoking a refresh token (RFC 7009) destroys its grant (the provider's revokeGrantPolicy),
    // and so its access tokens, as section 2.1 asks.
    extraTokenClaims: async (_ctx, token) => ("grantId" in token ? { [GRANT_ID_CLAIM]: token.grantId } : undefined),
    // Every client that may use refresh tokens gets one, without having to ask for offline_access.
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed("refresh_token"),
    // The provider's default binds tokens issued without offline_access to the sign-in session, so
    // refresh tokens documented for 14 days died with the 24-hour session. They live their own
    // lifetime (bounded by the grant's); signing out at /oauth/session/end still revokes the grant.
    expiresWithSession: async () => false,
    rotateRefreshToken: true,
    ttl: ttlOf(oauth),
    interactions: { url: (_ctx, interaction) => `${OAUTH_PREFIX}/interaction/${interaction.uid}` },
    enabledJWA: {
      idTokenSigningAlgValues: [SIGNING_ALGORITHM],
      requestObjectSigningAlgValues: [SIGNING_ALGORITHM],
      userinfoSigningAlgValues: [SIGNING_ALGORITHM],
      introspectionSigningAlgValues: [SIGNING_ALGORITHM],
      authorizationSigningAlgValues: [SIGNING_ALGORITHM],
    },
    clientAuthMethods: ["none", "client_secret_basic", "client_secret_post"],
    // The same minimal page as the login form, instead of the default one that loads web fonts.
    renderError: (ctx, out) => sendPage(ctx, errorPage(`${out.error}: ${out.error_description ?? ""}`)),
  };

  const provider = new ProviderClass(builtIn.issuer, configuration);
  // Host and scheme come from X-Forwarded-Host/-Proto, which PublicUrlMiddleware sets to PUBLIC_URL's.
  provider.proxy = true;
  // A sign-out at the server revokes the grants of the session's clients. oidc-provider keeps the
  // grants of tokens that do not expire with the session (expiresWithSession: false marks them
  // persistsLogout), so their refresh tokens, and their access tokens, which the api checks against
  // the grant per request, would outlive the sign-out. Awaited before the answer leaves.
  provider.use(async (ctx, next) => {
    await next();
    const oidc = (ctx as { oidc?: SignOutContext }).oidc;
    if (oidc?.route !== "end_session_confirm" || !oidc.params?.logout || oidc.session?.destroyed !== true) return;
    for (const { grantId } of Object.values(oidc.session.authorizations ?? {})) {
      if (typeof grantId !== "string") continue;
      // One model at a time, the grant last, as the provider's own revocation does.
      for (const model of [provider.AuthorizationCode, provider.RefreshToken, provider.AccessToken]) {
        await model.revokeByGrantId(grantId);
      }
      await provider.Grant.adapter.destroy(grantId);
    }
  });
  // Client secrets are stored as scrypt hashes (never in clear), so they are compared by hashing.
  provider.Client.prototype.compareClientSecret = function compareHashed(this: { clientSecret?: string }, actual) {
    return this.clientSecret === undefined ? false : verifySecret(actual, this.clientSecret);
  };
  return provider;
}

/** What the sign-out middleware reads of the provider's request context (oidc-provider's own, untyped there). */
interface SignOutContext {
  route?: string;
  params?: { logout?: unknown };
  session?: { destroyed?: boolean; authorizations?: Record<string, { grantId?: unknown }> };
}

/** A page of the provider's own; the api's default policy (default-src 'none') would block its inline style. */
function sendPage(ctx: { type: string; body: unknown; set(name: string, value: string): void }, html: string): void {
  ctx.type = "html";
  ctx.set("Content-Security-Policy", PAGE_CONTENT_SECURITY_POLICY);
  ctx.body = html;
}

function ttlOf(oauth: OAuthConfig): NonNullable<Configuration["ttl"]> {
  return {
    AccessToken: oauth.accessTokenTtlSeconds,
    AuthorizationCode: oauth.codeTtlSeconds,
    RefreshToken: oauth.refreshTokenTtlSeconds,
    Grant: oauth.refreshTokenTtlSeconds,
    IdToken: oauth.accessTokenTtlSeconds,
    Interaction: 3_600,
    Session: oauth.sessionTtlSeconds,
  };
}
