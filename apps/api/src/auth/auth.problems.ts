import { CALENDAR_SCOPE, READ_SCOPE, WEBHOOKS_SCOPE } from "@community/domain";
import { challengeHeader, ProblemException, problemTypes, REALM } from "../common/problems";

/** The api's bearer authentication: its problem types. */
export const AUTH_PROBLEMS = problemTypes({
  Unauthorized: {
    type: "unauthorized",
    status: 401,
    title: "Unauthorized",
    docs: 'No, malformed, unknown, expired or revoked access token. A token that was sent but is not valid adds error="invalid_token" to the challenge.',
    headers: challengeHeader({ pattern: '^Bearer realm="api"', examples: [`${REALM}, error="invalid_token"`] }),
    example: { detail: "The access token is not valid" },
  },
  InsufficientScope: {
    type: "insufficient-scope",
    status: 403,
    title: "Insufficient scope",
    docs: `The access token (a JWT) does not carry the scope the endpoint needs: ${READ_SCOPE} for the lists, ${WEBHOOKS_SCOPE} for the webhooks, ${CALENDAR_SCOPE} for the calendar feeds (error="insufficient_scope" in the challenge).`,
    headers: challengeHeader({ pattern: '^Bearer realm="api"', examples: [`${REALM}, error="insufficient_scope"`] }),
    example: { detail: `The access token does not grant the scope ${READ_SCOPE}` },
  },
});

/** No usable credentials: no Authorization header, another scheme, or an empty bearer token. */
export class MissingCredentialsException extends ProblemException {
  constructor() {
    super(AUTH_PROBLEMS.Unauthorized, "This endpoint requires an Authorization: Bearer <access token> header", {
      "WWW-Authenticate": REALM,
    });
  }
}

/** A bearer token was sent and is not valid. Never says whether it was unknown, expired or revoked. */
export class InvalidTokenException extends ProblemException {
  constructor() {
    super(AUTH_PROBLEMS.Unauthorized, "The access token is not valid", {
      "WWW-Authenticate": `${REALM}, error="invalid_token", error_description="The access token is not valid"`,
    });
  }
}

/** A valid token that lacks the scope the endpoint needs (RFC 6750 section 3.1). */
export class InsufficientScopeException extends ProblemException {
  constructor(readonly scope: string) {
    super(AUTH_PROBLEMS.InsufficientScope, `The access token does not grant the scope ${scope}`, {
      "WWW-Authenticate": `${REALM}, error="insufficient_scope", scope="${scope}"`,
    });
  }
}
