import { isDatabaseUnavailableError, verifySecret } from "@community/db";
import { READ_SCOPE } from "@community/domain";
import { Inject, Injectable, type OnApplicationBootstrap } from "@nestjs/common";
import { APP_CONFIG, type AppConfig, type OAuthConfig } from "../config/config";
import { UserRepository } from "../users/user.repository";
import { errorPage, PAGE_CONTENT_SECURITY_POLICY } from "./interaction-pages";
import { OAuthKeysRepository, SIGNING_ALGORITHM, signingKidAt } from "./oauth-keys.repository";
import { OAuthPayloadAdapter } from "./oauth-payload.adapter";
import type { Configuration, Provider } from "./oidc-provider.types";

/** Path prefix of every route of the authorization server (issuer = PUBLIC_URL + this). */
export const OAUTH_PREFIX = "/oauth";

/**
 * The oidc-provider instance, created on first use and kept: its keys live in the database, which
 * may still be down when the api starts (then /oauth answers 503 until it is up; see
 * bootstrap/prepare-database.ts). A failed start is tried again by the next request.
 */
@Injectable()
export class AuthorizationServer implements OnApplicationBootstrap {
  private starting: Promise<Provider> | undefined;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly keys: OAuthKeysRepository,
    private readonly storage: OAuthPayloadAdapter,
    private readonly users: UserRepository,
  ) {}

  provider(): Promise<Provider> {
    this.starting ??= createAuthorizationServer(this.config, {
      keys: this.keys,
      storage: this.storage,
      users: this.users,
    }).catch((error: unknown) => {
      this.starting = undefined;
      throw error;
    });
    return this.starting;
  }

  /** Starts with the app when the database answers, so a misconfiguration stops the start. */
  async onApplicationBootstrap(): Promise<void> {
    await this.provider().catch((error: unknown) => {
      if (!isDatabaseUnavailableError(error)) throw error;
    });
  }
}

export interface AuthorizationServerDependencies {
  keys: OAuthKeysRepository;
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
  { keys: keyRepository, storage, users }: AuthorizationServerDependencies,
): Promise<Provider> {
  const oauth = config.oauth;
  const builtIn = oauth.builtIn;
  if (builtIn === undefined) throw new Error("the built-in authorization server is disabled (AUTH_SERVER=false)");
  // ESM-only, and it must stay a real import() (TypeScript's node16 module mode and the test transform keep it).
  const { default: ProviderClass, errors } = await import("oidc-provider");
  const keys = await keyRepository.loadOrCreate();

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
    scopes: ["openid", "offline_access", READ_SCOPE],
    claims: { openid: ["sub"], profile: ["name"] },
    findAccount: async (_ctx, sub) => {
      const user = await users.findProfile(sub);
      return user === null ? undefined : { accountId: user.id, claims: () => ({ sub: user.id, name: user.name }) };
    },
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
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
            scope: READ_SCOPE,
            audience: builtIn.audience,
            accessTokenTTL: oauth.accessTokenTtlSeconds,
            accessTokenFormat: "jwt",
            // Chosen per token, so that a rotated key starts signing at its activation time.
            jwt: { sign: { alg: SIGNING_ALGORITHM, kid: signingKidAt(keys.signing, new Date()) } },
          };
        },
      },
    },
    // Every client that may use refresh tokens gets one, without having to ask for offline_access.
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed("refresh_token"),
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
    renderError: (ctx, out) => {
      ctx.type = "html";
      // The api's default policy (default-src 'none') would block the page's inline style.
      ctx.set("Content-Security-Policy", PAGE_CONTENT_SECURITY_POLICY);
      ctx.body = errorPage(`${out.error}: ${out.error_description ?? ""}`);
    },
  };

  const provider = new ProviderClass(builtIn.issuer, configuration);
  // Client secrets are stored as scrypt hashes (never in clear), so they are compared by hashing.
  provider.Client.prototype.compareClientSecret = function compareHashed(this: { clientSecret?: string }, actual) {
    return this.clientSecret === undefined ? false : verifySecret(actual, this.clientSecret);
  };
  return provider;
}

function ttlOf(oauth: OAuthConfig): NonNullable<Configuration["ttl"]> {
  return {
    AccessToken: oauth.accessTokenTtlSeconds,
    AuthorizationCode: oauth.codeTtlSeconds,
    RefreshToken: oauth.refreshTokenTtlSeconds,
    Grant: oauth.refreshTokenTtlSeconds,
    IdToken: oauth.accessTokenTtlSeconds,
    Interaction: 3_600,
    Session: 86_400,
  };
}
