import { ALLOWED_METHODS, ProblemException, type ProblemType } from "../common/problems";

/** The list endpoints: its problem types. */
export const TEAM_LIST_PROBLEMS = {
  NoCommunityTeam: {
    type: "no-community-team",
    status: 404,
    title: "No community team",
    docs: "The authenticated user is not a member of a community team.",
    example: { detail: "The authenticated user is not a member of a community team" },
  },
  MethodNotAllowed: {
    type: "method-not-allowed",
    status: 405,
    title: "Method not allowed",
    docs: "Any method other than GET and HEAD on a list path.",
    headers: {
      Allow: { description: "The methods the resource answers.", schema: { type: "string", const: ALLOWED_METHODS } },
    },
    example: { detail: "POST is not allowed here; use GET or HEAD" },
  },
} as const satisfies Record<string, ProblemType>;

export class NoCommunityTeamException extends ProblemException {
  constructor() {
    super(TEAM_LIST_PROBLEMS.NoCommunityTeam, "The authenticated user is not a member of a community team");
  }
}

export class MethodNotAllowedException extends ProblemException {
  constructor(method: string) {
    super(TEAM_LIST_PROBLEMS.MethodNotAllowed, `${method} is not allowed here; use GET or HEAD`, {
      Allow: ALLOWED_METHODS,
    });
  }
}
