import { Module } from "@nestjs/common";
import { PassportModule } from "@nestjs/passport";
import { AccessTokenRepository } from "./access-token.repository";
import { BearerStrategy } from "./bearer.strategy";
import { BearerAuthGuard } from "./bearer-auth.guard";
import { BuiltInIssuerKeys } from "./built-in-issuer-keys";
import { JwtAccessTokenVerifier } from "./jwt-access-token.verifier";
import { UserRepository } from "./user.repository";

@Module({
  imports: [PassportModule.register({ session: false })],
  providers: [
    AccessTokenRepository,
    UserRepository,
    BuiltInIssuerKeys,
    JwtAccessTokenVerifier,
    BearerStrategy,
    BearerAuthGuard,
  ],
  exports: [BearerAuthGuard],
})
export class AuthModule {}
