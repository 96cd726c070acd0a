import { Inject, Injectable, Logger } from "@nestjs/common";
import { APP_CONFIG, type AppConfig } from "../config/config";
import { BuiltInIssuerKeys } from "./built-in-issuer-keys";
import type { JWTPayload, JWTVerifyGetKey } from "./jose";
import { loadJose } from "./jose";
import { IssuerKeysUnavailableError, RemoteIssuerKeys } from "./jwks-discovery";

/** What a verified access token says about its caller. */
export interface VerifiedAccessToken {
  /** The local user (`users.id`) the token speaks for: a subject is unique only within its issuer. */
  userId: string;
  issuer: string;
  subject: string;
  clientId: string;
  scopes: ReadonlySet<string>;
  /**
   * The built-in server's grant the token was issued under (its GRANT_ID_CLAIM), which must still
   * exist when the token is used; undefined for an external issuer's token, which is not ours to revoke.
   */
  grantId: string | undefined;
}

/**
 * The claim of the built-in server's access tokens that names their grant (oidc-provider's grant
 * id; not a credential: it lets no one use or revoke the grant).
 */
export const GRANT_ID_CLAIM = "grant_id";

interface TrustedIssuer {
  issuer: string;
  audience: string;
  /** RFC 9068 requires `typ: at+jwt`; some identity providers still send `typ: JWT`. */
  typ: "at+jwt" | undefined;
  keys: JWTVerifyGetKey;
  /** The local user a subject of this issuer is (undefined: none). */
  localUser: (subject: string) => string | undefined;
  /** The built-in server: its tokens must name their grant (GRANT_ID_CLAIM). */
  builtIn: boolean;
}

/**
 * Asymmetric algorithms only: `none` and the HS* family (which would let anyone holding the
 * public key forge tokens) never verify, whatever a token's header says.
 */
export const ALLOWED_ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
];

/** Compact JWS: three base64url parts. Anything else is an opaque token. */
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * Verifies JWT access tokens (RFC 9068) of the trusted issuers: the built-in authorization server
 * and/or the external one of OAUTH_ISSUER. The issuer is chosen by the token's exact `iss`, then
 * the token must pass that issuer's keys, `aud`, `typ`, `exp`/`nbf`/`iat` (with OAUTH_CLOCK_SKEW_SECONDS),
 * live no longer than OAUTH_MAX_TOKEN_LIFETIME_SECONDS and carry `sub` and a client id. The user is
 * the pair (issuer, sub) mapped to a local user; a token of the built-in server must also name its
 * grant, whose existence the caller checks (BearerStrategy). Keys are cached in memory.
 */
@Injectable()
export class JwtAccessTokenVerifier {
  private readonly logger = new Logger(JwtAccessTokenVerifier.name);
  private readonly issuers: Promise<Map<string, TrustedIssuer>>;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly builtInKeys: BuiltInIssuerKeys,
  ) {
    this.issuers = this.trustedIssuers();
    // Failures surface per request (as invalid tokens); this only keeps Node from reporting them.
    this.issuers.catch(() => undefined);
  }

  /** True when the token has the shape of a JWS and a header naming an algorithm. */
  static looksLikeJwt(token: string): boolean {
    if (!JWT_SHAPE.test(token)) return false;
    try {
      const header = JSON.parse(Buffer.from(token.slice(0, token.indexOf(".")), "base64url").toString("utf8"));
      return typeof header === "object" && header !== null && typeof header.alg === "string";
    } catch {
      return false;
    }
  }

  /** The verified token, or null when it is not valid for any trusted issuer (never says why). */
  async verify(token: string): Promise<VerifiedAccessToken | null> {
    const jose = await loadJose();
    let issuer: TrustedIssuer | undefined;
    try {
      const claimedIssuer = jose.decodeJwt(token).iss;
      issuer = claimedIssuer === undefined ? undefined : (await this.issuers).get(claimedIssuer);
    } catch {
      return null;
    }
    if (issuer === undefined) return null;
    let payload: JWTPayload;
    try {
      ({ payload } = await jose.jwtVerify(token, issuer.keys, {
        issuer: issuer.issuer,
        audience: issuer.audience,
        typ: issuer.typ,
        algorithms: ALLOWED_ALGORITHMS,
        clockTolerance: this.config.oauth.clockSkewSeconds,
        requiredClaims: ["exp", "sub"],
      }));
    } catch (error) {
      // An unreachable issuer is logged once per failed fetch (RemoteIssuerKeys), not per token;
      // anything else unexpected is logged here. The caller sees an invalid token either way.
      if (!(error instanceof jose.errors.JOSEError) && !(error instanceof IssuerKeysUnavailableError)) {
        this.logger.warn(`cannot verify a token of ${issuer.issuer}: ${(error as Error).message}`);
      }
      return null;
    }
    if (!this.withinLifetime(payload)) return null;
    const clientId = firstString(payload.client_id, payload.azp, payload.cid, payload.appid);
    if (typeof payload.sub !== "string" || clientId === undefined) return null;
    const userId = issuer.localUser(payload.sub);
    if (userId === undefined) return null;
    // A built-in token without its grant (issued before tokens carried it, at most an access token
    // lifetime ago) could not be revoked: refused, as one of any unknown grant.
    const grantId = issuer.builtIn ? firstString(payload[GRANT_ID_CLAIM]) : undefined;
    if (issuer.builtIn && grantId === undefined) return null;
    return { userId, issuer: issuer.issuer, subject: payload.sub, clientId, scopes: scopesOf(payload), grantId };
  }

  /**
   * RFC 8725 section 3.10: `iat` may not lie ahead of the clock by more than the skew allowed on
   * `exp`, and `exp` may not lie further than the lifetime cap from `iat` (or from now without one),
   * so a stolen signing key cannot mint tokens that outlive its retirement by years.
   */
  private withinLifetime(payload: JWTPayload): boolean {
    const { clockSkewSeconds, maxTokenLifetimeSeconds } = this.config.oauth;
    const now = Math.floor(Date.now() / 1000);
    if (payload.iat !== undefined && payload.iat > now + clockSkewSeconds) return false;
    const from = Math.min(payload.iat ?? now, now);
    return typeof payload.exp === "number" && payload.exp - from <= maxTokenLifetimeSeconds + clockSkewSeconds;
  }

  private async trustedIssuers(): Promise<Map<string, TrustedIssuer>> {
    const { builtIn, external, jwksCooldownSeconds, issuerTimeoutMs } = this.config.oauth;
    const issuers = new Map<string, TrustedIssuer>();
    if (builtIn !== undefined) {
      // The built-in server's subjects are the local users it signs in.
      const localUser = (subject: string) => subject;
      issuers.set(builtIn.issuer, {
        ...builtIn,
        typ: "at+jwt",
        keys: this.builtInKeys.getKey,
        localUser,
        builtIn: true,
      });
    }
    if (external !== undefined) {
      const remote = new RemoteIssuerKeys({
        issuer: external.issuer,
        jwksUri: external.jwksUri,
        cooldownMs: jwksCooldownSeconds * 1000,
        timeoutMs: issuerTimeoutMs,
        onFailure: (error) => this.logger.warn(error.message),
      });
      issuers.set(external.issuer, {
        issuer: external.issuer,
        audience: external.audience,
        typ: external.allowJwtTyp ? undefined : "at+jwt",
        keys: remote.getKey,
        // Config admits the external issuer beside the built-in one only once the operator has
        // declared its subjects local user ids (OAUTH_EXTERNAL_SUBJECTS=local); alone, it is the
        // only issuer of the users table.
        localUser: external.subjects === "local" ? (subject: string) => subject : () => undefined,
        builtIn: false,
      });
    }
    return issuers;
  }
}

function firstString(...values: unknown[]): string | undefined {
  return values.find((value): value is string => typeof value === "string" && value !== "");
}

/** `scope` (RFC 9068, space-separated) or `scp` (Entra ID: a string; Okta: an array). */
function scopesOf(payload: JWTPayload): ReadonlySet<string> {
  const raw = payload.scope ?? payload.scp;
  if (typeof raw === "string") return new Set(raw.split(" ").filter(Boolean));
  if (Array.isArray(raw)) return new Set(raw.filter((s): s is string => typeof s === "string"));
  return new Set();
}
