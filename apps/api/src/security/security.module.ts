import { Inject, type MiddlewareConsumer, Module, type NestModule } from "@nestjs/common";
import { APP_INTERCEPTOR } from "@nestjs/core";
import { APP_CONFIG, type AppConfig } from "../config/config";
import { BodyLimitMiddleware } from "./body-limit.middleware";
import { httpHardening } from "./http-hardening.middleware";
import { RequestTimeoutInterceptor } from "./request-timeout.interceptor";

@Module({
  providers: [BodyLimitMiddleware, { provide: APP_INTERCEPTOR, useClass: RequestTimeoutInterceptor }],
})
export class SecurityModule implements NestModule {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  configure(consumer: MiddlewareConsumer): void {
    // Headers first, so that a refused body (413) carries them too.
    consumer.apply(...httpHardening(this.config), BodyLimitMiddleware).forRoutes("{*path}");
  }
}
