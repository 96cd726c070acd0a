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
