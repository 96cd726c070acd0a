import { Inject, Injectable, Logger } from "@nestjs/common";
import { APP_CONFIG, type AppConfig } from "../config/config";
import { BuiltInIssuerKeys } from "./built-in-issuer-keys";
import type { JWTPayload, JWTVerifyGetKey } from "./jose";
import { loadJose } from "./jose";
import { discoverJwksUri } from "./jwks-discovery";

/** What a verified access token says about its caller. */
export interface VerifiedAccessToken {
  subject: string;
  clientId: string;
  scopes: ReadonlySet<string>;
}

interface TrustedIssuer {
  issuer: string;
  audience: string;
  /** RFC 9068 requires `typ: at+jwt`; some identity providers still send `typ: JWT`. */
  typ: "at+jwt" | undefined;
  keys: JWTVerifyGetKey;
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
 * the token must pass that issuer's keys, `aud`, `typ`, `exp`/`nbf` (with OAUTH_CLOCK_SKEW_SECONDS)
 * and carry `sub` and a client id. Keys are cached in memory; an unknown `kid` refetches them.
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
      // Anything else failed to reach the issuer's keys (discovery, network): the token cannot be
      // verified, which the caller sees as an invalid token; operators see why in the log.
      if (!(error instanceof jose.errors.JOSEError) || error instanceof jose.errors.JWKSTimeout) {
        this.logger.warn(`cannot verify a token of ${issuer.issuer}: ${(error as Error).message}`);
      }
      return null;
    }
    const clientId = firstString(payload.client_id, payload.azp, payload.cid, payload.appid);
    if (typeof payload.sub !== "string" || clientId === undefined) return null;
    return { subject: payload.sub, clientId, scopes: scopesOf(payload) };
  }

  private async trustedIssuers(): Promise<Map<string, TrustedIssuer>> {
    const jose = await loadJose();
    const { builtIn, external, jwksCooldownSeconds } = this.config.oauth;
    const issuers = new Map<string, TrustedIssuer>();
    if (builtIn !== undefined) {
      issuers.set(builtIn.issuer, { ...builtIn, typ: "at+jwt", keys: this.builtInKeys.getKey });
    }
    if (external !== undefined) {
      let remote: JWTVerifyGetKey | undefined;
      // The identity provider is asked for its JWKS location on first use, not at start-up, so the
      // api starts while the provider is down; a failed discovery is retried by the next request.
      const keys: JWTVerifyGetKey = async (header, token) => {
        if (remote === undefined) {
          const jwksUri = external.jwksUri ?? (await discoverJwksUri(external.issuer));
          remote = jose.createRemoteJWKSet(new URL(jwksUri), {
            cooldownDuration: jwksCooldownSeconds * 1000,
            timeoutDuration: 5_000,
          });
        }
        return remote(header, token);
      };
      issuers.set(external.issuer, {
        issuer: external.issuer,
        audience: external.audience,
        typ: external.allowJwtTyp ? undefined : "at+jwt",
        keys,
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
