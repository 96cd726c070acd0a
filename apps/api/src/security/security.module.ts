import { type MiddlewareConsumer, Module, type NestModule } from "@nestjs/common";
import { ProblemFilter } from "../common/problem.filter";
import { BodyLimitMiddleware } from "./body-limit.middleware";
import { RequestTimeoutMiddleware } from "./request-timeout.middleware";

@Module({
  providers: [BodyLimitMiddleware, RequestTimeoutMiddleware, ProblemFilter],
})
export class SecurityModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    // The timeout first, so that its clock covers everything after it.
    consumer.apply(RequestTimeoutMiddleware, BodyLimitMiddleware).forRoutes("{*path}");
  }
}
