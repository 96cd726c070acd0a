import { type CanActivate, type ExecutionContext, Inject, Injectable } from "@nestjs/common";
import type { Request, Response } from "express";
import { PROBLEM_PAGE, type ProblemPage } from "../../common/problem.filter";
import { APP_CONFIG, type AppConfig } from "../../config/config";
import { RateLimitedException } from "../../rate-limit/rate-limit.problems";
import { PayloadTooLargeException } from "../../security/security.problems";
import { errorPage } from "../interaction-pages";
import { LimitCounter } from "./limit-counter";

const showProblem: ProblemPage = (problem) => errorPage(problem.detail);

/**
 * The largest form body the provider's POST endpoints take (token, revocation, pushed requests):
 * their parameters are short; the provider's own bound (56 KiB) would let each pushed request
 * store that much for anyone.
 */
export const PROVIDER_FORM_LIMIT_BYTES = 16 * 1024;

/** The provider's endpoints that are limited per client address, each with a budget of its own. */
function limitedEndpoint(request: Request): "auth" | "token" | "request" | "end-session" | undefined {
  if (request.path === "/oauth/auth") return "auth";
  // The sign-out page stores a session (its state) for a caller who has none.
  if (request.path.startsWith("/oauth/session/end")) return "end-session";
  if (request.method !== "POST") return undefined;
  if (request.path === "/oauth/token") return "token";
  // RFC 9126: stores the request for anyone naming a public client, as /oauth/auth does.
  if (request.path === "/oauth/request") return "request";
  return undefined;
}

/**
 * Bounds the form bodies of the provider's POST endpoints (a body must declare its length), and
 * limits the authorization endpoint (each request stores an interaction), the pushed-request
 * endpoint (each stores the request), the sign-out page (each may store a session) and the token endpoint (each request checks a code, a
 * verifier or a client secret) per client address. Refusals are the
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
    if (request.method === "POST") {
      const declared = request.headers["content-length"];
      // An undeclared (chunked) body would be read by the provider up to its own, larger bound.
      const undeclared = declared === undefined && request.headers["transfer-encoding"] !== undefined;
      if (undeclared || Number(declared) > PROVIDER_FORM_LIMIT_BYTES) {
        throw new PayloadTooLargeException(PROVIDER_FORM_LIMIT_BYTES);
      }
    }
    const endpoint = limitedEndpoint(request);
    if (max === 0 || endpoint === undefined) return true;
    const windowMs = windowSeconds * 1000;
    const key = `oauth:${endpoint}:${request.ip ?? "unknown"}`;
    const wait = await this.counter.hit([{ key, windowMs, limit: max, blockMs: windowMs }]);
    if (wait === 0) return true;
    if (endpoint === "auth" || endpoint === "end-session")
      context.switchToHttp().getResponse<Response>().locals[PROBLEM_PAGE] = showProblem;
    throw new RateLimitedException(wait, max, windowSeconds);
  }
}
