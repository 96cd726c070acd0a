import { type MiddlewareConsumer, Module, type NestModule } from "@nestjs/common";
import { MetricsModule } from "../metrics/metrics.module";
import { RedisModule } from "../redis/redis.module";
import { OAuthKeysModule } from "../signing-keys/oauth-keys.module";
import { UsersModule } from "../users/users.module";
import { AuthorizationServer } from "./authorization-server";
import { AuthorizationServerController } from "./authorization-server.controller";
import { InteractionController } from "./interaction.controller";
import { InteractionService } from "./interaction.service";
import { InteractionPagesMiddleware } from "./interaction-pages.middleware";
import { LimitCounter } from "./limits/limit-counter";
import { LoginThrottle } from "./limits/login-throttle";
import { OAuthEndpointLimitGuard } from "./limits/oauth-endpoint-limit.guard";
import { OAuthClientRepository } from "./oauth-client.repository";
import { OAuthPayloadAdapter } from "./oauth-payload.adapter";
import { OAuthPayloadRepository } from "./oauth-payload.repository";
import { OAuthPayloadSweeper } from "./oauth-payload.sweeper";
import { PublicUrlMiddleware } from "./public-url.middleware";

/**
 * The built-in authorization server (AUTH_SERVER, on by default) under /oauth of the api's own
 * HTTP server: one process, so `pnpm start` on the embedded database stays a single command. Its
 * routes are Nest routes, so middleware, the problem filter, metrics and logs see them.
 */
@Module({
  imports: [UsersModule, OAuthKeysModule, MetricsModule, RedisModule],
  // Interaction routes first: the provider's controller takes every other path under /oauth.
  controllers: [InteractionController, AuthorizationServerController],
  providers: [
    OAuthPayloadRepository,
    OAuthClientRepository,
    OAuthPayloadAdapter,
    OAuthPayloadSweeper,
    InteractionService,
    AuthorizationServer,
    LimitCounter,
    LoginThrottle,
    OAuthEndpointLimitGuard,
  ],
})
export class OAuthModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(PublicUrlMiddleware).forRoutes(InteractionController, AuthorizationServerController);
    consumer.apply(InteractionPagesMiddleware).forRoutes(InteractionController);
  }
}
