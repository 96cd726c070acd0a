import { Module } from "@nestjs/common";
import { ProblemFilter } from "../common/problem.filter";
import { RequestHardening } from "./request-hardening";

/** The checks and headers of every request; the request pass (request-pass.middleware.ts) runs them. */
@Module({
  providers: [RequestHardening, ProblemFilter],
  exports: [RequestHardening],
})
export class SecurityModule {}
