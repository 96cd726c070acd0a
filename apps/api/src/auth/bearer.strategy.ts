import { hashToken } from "@community/db";
import { Injectable } from "@nestjs/common";
import { PassportStrategy } from "@nestjs/passport";
import type { Request } from "express";
import { Strategy } from "passport-http-bearer";
import { type BearerCredential, bearerCredential } from "../common/bearer-credential";
import { UserRepository } from "../users/user.repository";
import { AccessTokenRepository } from "./access-token.repository";
import { JwtAccessTokenVerifier } from "./jwt-access-token.verifier";
import type { Member } from "./member";

/**
 * The "bearer" strategy: resolves an access token to its member. A JWT is verified against the
 * trusted issuers and its (issuer, `sub`) names the user, a built-in server's token also its grant,
 * which must still exist; any other token is opaque, and only its SHA-256 digest is looked up.
 * Either way one database query on the primary; the plaintext is neither stored nor logged.
 *
 * Its `authenticate` keeps passport's strategy contract (success, fail, error) but reads the
 * token as the contract does, from the Authorization header alone, through bearerCredential:
 * read and hashed once per request (the rate limit, which runs first, asked already).
 * passport-http-bearer's own parser would read the header a second time and also take an
 * `access_token` from the query string, where the contract ignores unknown parameters. The member
 * passport puts on `request.user` carries the digest, so nothing after reads or hashes it again.
 */
@Injectable()
export class BearerStrategy extends PassportStrategy(Strategy, "bearer") {
  // Given by passport to the object it makes of the strategy for each request.
  declare success: (member: Member) => void;
  declare fail: () => void;
  declare error: (error: unknown) => void;

  constructor(
    private readonly tokens: AccessTokenRepository,
    private readonly users: UserRepository,
    private readonly jwts: JwtAccessTokenVerifier,
  ) {
    super({ realm: "api" });
  }

  override authenticate(request: Request): void {
    const credential = bearerCredential(request);
    if (credential === undefined) {
      this.fail();
      return;
    }
    this.validate(credential).then(
      (member) => (member ? this.success(member) : this.fail()),
      (error: unknown) => this.error(error),
    );
  }

  async validate({ token, digest }: BearerCredential): Promise<Member | false> {
    if (JwtAccessTokenVerifier.looksLikeJwt(token)) {
      const verified = await this.jwts.verify(token);
      if (verified === null) return false;
      // The built-in server's grant is checked in the same statement: revoked (refresh token
      // revoked, signed out, code reused) or expired, the token is refused on the next request.
      const grantHash = verified.grantId === undefined ? undefined : hashToken(verified.grantId);
      const user = await this.users.findMember(verified.userId, grantHash, new Date());
      if (user === null) return false;
      return {
        userId: user.id,
        teamId: user.teamId,
        clientId: verified.clientId,
        scopes: verified.scopes,
        grantHash,
        tokenDigest: digest,
      };
    }
    return (await this.tokens.findMemberByTokenHash(digest, new Date())) ?? false;
  }
}
