import { Module } from "@nestjs/common";
import { PassportModule } from "@nestjs/passport";
import { APP_CONFIG, type AppConfig } from "../config/config";
import { OAuthKeysModule } from "../signing-keys/oauth-keys.module";
import { UsersModule } from "../users/users.module";
import { AccessTokenRepository } from "./access-token.repository";
import { BearerStrategy } from "./bearer.strategy";
import { BearerAuthGuard } from "./bearer-auth.guard";
import { BuiltInIssuerKeys } from "./built-in-issuer-keys";
import { JwtAccessTokenVerifier } from "./jwt-access-token.verifier";
import { UnknownTokenCache } from "./unknown-token-cache";

@Module({
  imports: [PassportModule.register({ session: false }), UsersModule, OAuthKeysModule],
  providers: [
    {
      provide: UnknownTokenCache,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => new UnknownTokenCache(config.authUnknownTokenCacheMs),
    },
    AccessTokenRepository,
    BuiltInIssuerKeys,
    JwtAccessTokenVerifier,
    BearerStrategy,
    BearerAuthGuard,
  ],
  exports: [BearerAuthGuard],
})
export class AuthModule {}
