import { hashToken } from "@community/db";
import { Injectable } from "@nestjs/common";
import { PassportStrategy } from "@nestjs/passport";
import type { Request } from "express";
import { Strategy } from "passport-http-bearer";
import { UserRepository } from "../users/user.repository";
import { AccessTokenRepository } from "./access-token.repository";
import { bearerCredential } from "./bearer-credential";
import { JwtAccessTokenVerifier } from "./jwt-access-token.verifier";
import type { Member } from "./member";

/**
 * passport-http-bearer: resolves an access token to its member. A JWT is verified against the
 * trusted issuers and its (issuer, `sub`) names the user, a built-in server's token also its grant,
 * which must still exist; any other token is opaque, and only its SHA-256 digest is looked up.
 * Either way one database query on the primary; the plaintext is neither stored nor logged.
 *
 * passport shows the strategy the request (`passReqToCallback`): the token must be the one of the
 * Authorization header (passport-http-bearer also reads `access_token` from the query string or a
 * body, which the contract does not take: such a token is refused), and its digest is the one
 * read for this request already (bearerCredential). The member passport puts on `request.user`
 * carries that digest, so nothing after authentication reads or hashes the token again.
 */
@Injectable()
export class BearerStrategy extends PassportStrategy(Strategy, "bearer") {
  constructor(
    private readonly tokens: AccessTokenRepository,
    private readonly users: UserRepository,
    private readonly jwts: JwtAccessTokenVerifier,
  ) {
    super({ realm: "api", passReqToCallback: true });
  }

  async validate(request: Request, token: string): Promise<Member | false> {
    const credential = bearerCredential(request);
    if (credential === undefined || credential.token !== token) return false;
    const { digest } = credential;
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
