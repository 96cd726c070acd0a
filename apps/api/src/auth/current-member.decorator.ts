import { createParamDecorator, type ExecutionContext } from "@nestjs/common";
import type { AuthenticatedRequest } from "./bearer-auth.guard";
import type { Member } from "./member";

/** The member that BearerAuthGuard authenticated. */
export const CurrentMember = createParamDecorator(
  (_data: unknown, context: ExecutionContext): Member => context.switchToHttp().getRequest<AuthenticatedRequest>().user,
);
