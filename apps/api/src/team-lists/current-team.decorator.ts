import type { CallerTeam } from "@community/db/lists";
import { createParamDecorator, type ExecutionContext } from "@nestjs/common";

export type { CallerTeam };

/**
 * Who is calling, as the route's authentication guard left it on `request.user` (passport's
 * result): the caller's team and its lists' state, and the digest of the token the request came
 * with (for the long poll's count per token), read and hashed once per request.
 */
export interface Caller extends CallerTeam {
  tokenDigest: string;
}

/**
 * The caller (teamId null for a user without a team), from `request.user`. The team check itself
 * is TeamListsService's, so that a bad query is reported before a missing team (contract: order
 * of checks).
 */
export const CurrentTeam = createParamDecorator((_data: unknown, context: ExecutionContext): Caller => {
  const { user } = context.switchToHttp().getRequest<{ user?: Caller }>();
  // A route without an authentication guard in front is a programming error, not the client's.
  if (user === undefined) throw new Error("@CurrentTeam() needs an authentication guard on its route");
  return user;
});
