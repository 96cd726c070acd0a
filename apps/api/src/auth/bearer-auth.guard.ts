import { READ_SCOPE } from "@community/domain";
import { type ExecutionContext, Injectable } from "@nestjs/common";
import { Reflector } from "@nestjs/core";
import { AuthGuard } from "@nestjs/passport";
import type { Request } from "express";
import { isPublic, requiredScope } from "../common/public.decorator";
import { InsufficientScopeException, InvalidTokenException, MissingCredentialsException } from "./auth.problems";
import type { Member } from "./member";

/** A request once BearerAuthGuard has run: passport's result, the member, on `request.user`. */
export type AuthenticatedRequest = Request & { user: Member };

/**
 * Authenticates through passport (`passport.authenticate("bearer")`, run by @nestjs/passport's
 * AuthGuard) with the bearer strategy (BearerStrategy, passport-http-bearer's parser) and turns
 * every failure into the contract's 401 (RFC 6750): a plain challenge when no bearer token was
 * sent, `error="invalid_token"` when one was sent and is not valid. A valid JWT without the scope
 * of the route (the read scope, or what @RequiredScope() names) is a 403 insufficient_scope. Database failures
 * pass through (they become 503).
 *
 * passport is shown the request itself, and @nestjs/passport's AuthGuard puts what handleRequest
 * returns on `request.user`, where everything after authentication reads the caller (the team,
 * the token's digest for the long poll and the rate limit's accounts, the log line's user id).
 */
@Injectable()
export class BearerAuthGuard extends AuthGuard("bearer") {
  constructor(private readonly reflector: Reflector) {
    super();
  }

  override canActivate(context: ExecutionContext): Promise<boolean> | boolean {
    if (isPublic(this.reflector, context)) return true;
    return super.canActivate(context) as Promise<boolean>;
  }

  override handleRequest<TUser = Member>(
    error: unknown,
    member: Member | false,
    _challenge: unknown,
    context: ExecutionContext,
  ): TUser {
    if (error) throw error;
    if (!member) {
      throw bearerTokenSent(context.switchToHttp().getRequest<Request>().headers.authorization)
        ? new InvalidTokenException()
        : new MissingCredentialsException();
    }
    const scope = requiredScope(this.reflector, context) ?? READ_SCOPE;
    if (member.scopes !== null && !member.scopes.has(scope)) throw new InsufficientScopeException(scope);
    return member as TUser;
  }
}

/**
 * True when a refused request's header uses the Bearer scheme (any case) and carries something
 * after it: the token was sent, so the challenge says `invalid_token`. This classifies a failure
 * for the answer; the token itself is only ever read by passport-http-bearer.
 */
function bearerTokenSent(header: string | undefined): boolean {
  const match = header?.match(/^\s*bearer(?:\s+(.*))?$/i);
  return match !== null && match !== undefined && (match[1] ?? "").trim() !== "";
}
