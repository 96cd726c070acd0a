import { READ_SCOPE } from "@community/domain";
import { type ExecutionContext, Injectable } from "@nestjs/common";
import { AuthGuard } from "@nestjs/passport";
import type { Request } from "express";
import { InsufficientScopeException, InvalidTokenException, MissingCredentialsException } from "./auth.problems";
import type { Member } from "./member";

export type AuthenticatedRequest = Request & { member: Member };

/**
 * Authenticates with the bearer strategy and turns every failure into the contract's 401
 * (RFC 6750): a plain challenge when no bearer token was sent, `error="invalid_token"` when one
 * was sent and is not valid. A valid JWT without the read scope is a 403 insufficient_scope (both
 * endpoints behind this guard only read). Database failures pass through (they become 503).
 */
@Injectable()
export class BearerAuthGuard extends AuthGuard("bearer") {
  /**
   * The token is read from the Authorization header only: passport-http-bearer would also take
   * `access_token` from the query string or body, which leaks tokens into logs and is disabled.
   */
  override getRequest(context: ExecutionContext) {
    const request = context.switchToHttp().getRequest<Request>();
    return { headers: { authorization: request.headers.authorization } };
  }

  override handleRequest<TUser = Member>(
    error: unknown,
    member: Member | false,
    _info: unknown,
    context: ExecutionContext,
  ): TUser {
    if (error) throw error;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    if (!member) {
      throw bearerTokenSent(request.headers.authorization)
        ? new InvalidTokenException()
        : new MissingCredentialsException();
    }
    if (member.scopes !== null && !member.scopes.has(READ_SCOPE)) {
      throw new InsufficientScopeException(READ_SCOPE);
    }
    request.member = member;
    return member as TUser;
  }
}

/** True when the header uses the Bearer scheme (any case) and carries something after it. */
function bearerTokenSent(header: string | undefined): boolean {
  const match = header?.match(/^\s*bearer(?:\s+(.*))?$/i);
  return match !== null && match !== undefined && (match[1] ?? "").trim() !== "";
}
