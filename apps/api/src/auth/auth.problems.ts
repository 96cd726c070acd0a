import { ProblemException, REALM } from "../common/problems";

/** No usable credentials: no Authorization header, another scheme, or an empty bearer token. */
export class MissingCredentialsException extends ProblemException {
  constructor() {
    super("Unauthorized", "This endpoint requires an Authorization: Bearer <access token> header", {
      "WWW-Authenticate": REALM,
    });
  }
}

/** A bearer token was sent and is not valid. Never says whether it was unknown, expired or revoked. */
export class InvalidTokenException extends ProblemException {
  constructor() {
    super("Unauthorized", "The access token is not valid", {
      "WWW-Authenticate": `${REALM}, error="invalid_token", error_description="The access token is not valid"`,
    });
  }
}

/** A valid token that lacks the scope the endpoint needs (RFC 6750 section 3.1). */
export class InsufficientScopeException extends ProblemException {
  constructor(readonly scope: string) {
    super("InsufficientScope", `The access token does not grant the scope ${scope}`, {
      "WWW-Authenticate": `${REALM}, error="insufficient_scope", scope="${scope}"`,
    });
  }
}
