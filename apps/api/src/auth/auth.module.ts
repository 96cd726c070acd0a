import { Module } from "@nestjs/common";
import { PassportModule } from "@nestjs/passport";
import { AccessTokenRepository } from "./access-token.repository";
import { BearerStrategy } from "./bearer.strategy";
import { BearerAuthGuard } from "./bearer-auth.guard";

@Module({
  imports: [PassportModule.register({ session: false })],
  providers: [AccessTokenRepository, BearerStrategy, BearerAuthGuard],
  exports: [BearerAuthGuard],
})
export class AuthModule {}
