import { type ExecutionContext, SetMetadata } from "@nestjs/common";
import type { Reflector } from "@nestjs/core";

const PUBLIC = "community:public";

/**
 * A handler that a controller's guards let through whoever asks: the 405 of a list's other
 * methods answers before authentication and content negotiation, as it always has.
 */
export const Public = (): MethodDecorator => SetMetadata(PUBLIC, true);

/** Whether the handler of `context` is marked @Public(). */
export function isPublic(reflector: Reflector, context: ExecutionContext): boolean {
  return reflector.get<boolean | undefined>(PUBLIC, context.getHandler()) === true;
}

const REQUIRED_SCOPE = "community:required-scope";

/**
 * The scope a JWT access token must carry for a controller's (or a handler's) routes, when it is
 * not the read scope that the bearer guard requires by default (the webhooks' routes).
 */
export const RequiredScope = (scope: string): ClassDecorator & MethodDecorator => SetMetadata(REQUIRED_SCOPE, scope);

/** The scope that @RequiredScope() names for the handler of `context` or its controller, if any. */
export function requiredScope(reflector: Reflector, context: ExecutionContext): string | undefined {
  return reflector.getAllAndOverride<string | undefined>(REQUIRED_SCOPE, [context.getHandler(), context.getClass()]);
}
