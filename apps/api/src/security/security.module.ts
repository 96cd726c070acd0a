import { type MiddlewareConsumer, Module, type NestModule } from "@nestjs/common";
import { APP_INTERCEPTOR } from "@nestjs/core";
import { BodyLimitMiddleware } from "./body-limit.middleware";
import { RequestTimeoutInterceptor } from "./request-timeout.interceptor";

@Module({
  providers: [BodyLimitMiddleware, { provide: APP_INTERCEPTOR, useClass: RequestTimeoutInterceptor }],
})
export class SecurityModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(BodyLimitMiddleware).forRoutes("{*path}");
  }
}
