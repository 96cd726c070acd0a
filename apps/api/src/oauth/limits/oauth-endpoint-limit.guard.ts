import { type CanActivate, type ExecutionContext, Inject, Injectable } from "@nestjs/common";
import type { Request, Response } from "express";
import { PROBLEM_PAGE, type ProblemPage } from "../../common/problem.filter";
import { APP_CONFIG, type AppConfig } from "../../config/config";
import { RateLimitedException } from "../../rate-limit/rate-limit.problems";
import { errorPage } from "../interaction-pages";
import { LimitCounter } from "./limit-counter";

const showProblem: ProblemPage = (problem) => errorPage(problem.detail);

/** The provider's endpoints that are limited per client address, each with a budget of its own. */
function limitedEndpoint(request: Request): "auth" | "token" | undefined {
  if (request.path === "/oauth/auth") return "auth";
  if (request.path === "/oauth/token" && request.method === "POST") return "token";
  return undefined;
}

/**
 * Limits the authorization endpoint (each request stores an interaction) and the token endpoint
 * (each request checks a code, a verifier or a client secret) per client address. Refusals are the
 * api's 429 `rate-limited` problem with Retry-After: problem+json at /oauth/token (a client reads
 * the status and Retry-After; RFC 6749 has no error code for it), a page at /oauth/auth (a browser).
 */
@Injectable()
export class OAuthEndpointLimitGuard implements CanActivate {
  constructor(
    private readonly counter: LimitCounter,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const { max, windowSeconds } = this.config.oauth.endpointLimit;
    const request = context.switchToHttp().getRequest<Request>();
    const endpoint = limitedEndpoint(request);
    if (max === 0 || endpoint === undefined) return true;
    const windowMs = windowSeconds * 1000;
    const key = `oauth:${endpoint}:${request.ip ?? "unknown"}`;
    const wait = await this.counter.hit([{ key, windowMs, limit: max, blockMs: windowMs }]);
    if (wait === 0) return true;
    if (endpoint === "auth") context.switchToHttp().getResponse<Response>().locals[PROBLEM_PAGE] = showProblem;
    throw new RateLimitedException(wait, max, windowSeconds);
  }
}
