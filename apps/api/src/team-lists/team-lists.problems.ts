import { ALLOWED_METHODS, ProblemException } from "../common/problems";

export class NoCommunityTeamException extends ProblemException {
  constructor() {
    super("NoCommunityTeam", "The authenticated user is not a member of a community team");
  }
}

export class MethodNotAllowedException extends ProblemException {
  constructor(method: string) {
    super("MethodNotAllowed", `${method} is not allowed here; use GET or HEAD`, { Allow: ALLOWED_METHODS });
  }
}
