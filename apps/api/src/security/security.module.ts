import { Inject, type MiddlewareConsumer, Module, type NestModule } from "@nestjs/common";
import { ProblemFilter } from "../common/problem.filter";
import { APP_CONFIG, type AppConfig } from "../config/config";
import { BodyLimitMiddleware } from "./body-limit.middleware";
import { httpHardening } from "./http-hardening.middleware";
import { RequestTimeoutMiddleware } from "./request-timeout.middleware";

@Module({
  providers: [BodyLimitMiddleware, RequestTimeoutMiddleware, ProblemFilter],
})
export class SecurityModule implements NestModule {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  configure(consumer: MiddlewareConsumer): void {
    // The timeout first, so that its clock covers everything after it; then the headers, so that a
    // refused body (413) carries them too.
    consumer.apply(RequestTimeoutMiddleware, ...httpHardening(this.config), BodyLimitMiddleware).forRoutes("{*path}");
  }
}
