import type { CallerTeam } from "@community/db/lists";
import { createParamDecorator, type ExecutionContext } from "@nestjs/common";

export type { CallerTeam };

/** The request as an authentication guard leaves it: who is calling, and their team if any. */
interface MemberRequest {
  member?: CallerTeam;
}

/**
 * The caller's team (teamId null for a user without a team), from the member that the route's
 * authentication guard put on the request. The team check itself is TeamListsService's, so that a
 * bad query is reported before a missing team (contract: order of checks).
 */
export const CurrentTeam = createParamDecorator((_data: unknown, context: ExecutionContext): CallerTeam => {
  const { member } = context.switchToHttp().getRequest<MemberRequest>();
  // A route without an authentication guard in front is a programming error, not the client's.
  if (member === undefined) throw new Error("@CurrentTeam() needs an authentication guard on its route");
  return member;
});
