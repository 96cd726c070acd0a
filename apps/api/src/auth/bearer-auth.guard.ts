import { READ_SCOPE } from "@community/domain";
import { type ExecutionContext, Injectable } from "@nestjs/common";
import { AuthGuard } from "@nestjs/passport";
import type { Request } from "express";
import { InsufficientScopeException, InvalidTokenException, MissingCredentialsException } from "./auth.problems";
import { BearerStrategy } from "./bearer.strategy";
import type { Member } from "./member";

export type AuthenticatedRequest = Request & { member: Member };

/**
 * Authenticates with the bearer strategy and turns every failure into the contract's 401
 * (RFC 6750): a plain challenge when no bearer token was sent, `error="invalid_token"` when one
 * was sent and is not valid. A valid JWT without the read scope is a 403 insufficient_scope (both
 * endpoints behind this guard only read). Database failures pass through (they become 503).
 *
 * The strategy is passport's (BearerStrategy, registered with passport as "bearer"), but a
 * request does not go through `passport.authenticate`: that makes a new strategy object per
 * request (`Object.create` of the registered one) and hangs five fresh closures on it, and with
 * them every object the request allocated survived young-generation collections until the next
 * full one (bench/README.md, "Garbage: the promotion chain"). The guard reads the token as
 * passport-http-bearer does and calls the strategy's `validate` itself.
 */
@Injectable()
export class BearerAuthGuard extends AuthGuard("bearer") {
  constructor(private readonly strategy: BearerStrategy) {
    super();
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<Request>();
    const token = bearerToken(request.headers.authorization);
    const member = token === undefined ? false : await this.strategy.validate(token);
    this.handleRequest(null, member, undefined, context);
    return true;
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

/**
 * The token of an `Authorization: Bearer <token>` header, read as passport-http-bearer reads it:
 * exactly two parts separated by one space, the scheme in any case, a token that is not empty.
 * Only the header: passport-http-bearer would also take `access_token` from the query string or
 * body, which leaks tokens into logs.
 */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const parts = header.split(" ");
  if (parts.length !== 2 || !/^Bearer$/i.test(parts[0] as string)) return undefined;
  return parts[1] === "" ? undefined : parts[1];
}

/** True when the header uses the Bearer scheme (any case) and carries something after it. */
function bearerTokenSent(header: string | undefined): boolean {
  const match = header?.match(/^\s*bearer(?:\s+(.*))?$/i);
  return match !== null && match !== undefined && (match[1] ?? "").trim() !== "";
}
