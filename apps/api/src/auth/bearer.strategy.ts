import { hashToken } from "@community/db";
import { Injectable } from "@nestjs/common";
import { PassportStrategy } from "@nestjs/passport";
import { Strategy } from "passport-http-bearer";
import { AccessTokenRepository } from "./access-token.repository";
import type { Member } from "./member";

/**
 * passport-http-bearer: resolves an opaque access token to its member. Only the token's SHA-256
 * digest is looked up; the plaintext is neither stored nor logged.
 */
@Injectable()
export class BearerStrategy extends PassportStrategy(Strategy, "bearer") {
  constructor(private readonly tokens: AccessTokenRepository) {
    super({ realm: "api" });
  }

  async validate(token: string): Promise<Member | false> {
    return (await this.tokens.findMemberByTokenHash(hashToken(token), new Date())) ?? false;
  }
}
