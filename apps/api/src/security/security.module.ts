import { type MiddlewareConsumer, Module, type NestModule } from "@nestjs/common";
import { ProblemFilter } from "../common/problem.filter";
import { RequestHardeningMiddleware } from "./request-hardening.middleware";

@Module({
  providers: [RequestHardeningMiddleware, ProblemFilter],
})
export class SecurityModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(RequestHardeningMiddleware).forRoutes("{*path}");
  }
}
