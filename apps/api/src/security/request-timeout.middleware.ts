import { Inject, Injectable, type NestMiddleware } from "@nestjs/common";
import type { NextFunction, Request, Response } from "express";
import { ProblemFilter } from "../common/problem.filter";
import { APP_CONFIG, type AppConfig } from "../config/config";
import { RequestTimeoutException } from "./security.problems";

/**
 * Answers 503 `unavailable` (with Retry-After) to a request still unanswered REQUEST_TIMEOUT_MS
 * after it arrived, rather than letting the load balancer's own timeout cut the connection. A
 * middleware, not an interceptor: the clock starts before the guards (rate limit, bearer token),
 * which may wait on Redis or the database too. 503 and not 504: the api is not a gateway, and the
 * contract's 503 already tells clients to retry later.
 */
@Injectable()
export class RequestTimeoutMiddleware implements NestMiddleware {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly problems: ProblemFilter,
  ) {}

  use(request: Request, response: Response, next: NextFunction): void {
    const { requestTimeoutMs, retryAfterSeconds } = this.config;
    const timer = setTimeout(() => {
      this.problems.respond(new RequestTimeoutException(requestTimeoutMs, retryAfterSeconds), request, response);
    }, requestTimeoutMs);
    timer.unref();
    const stop = () => clearTimeout(timer);
    response.once("finish", stop);
    response.once("close", stop);
    next();
  }
}
