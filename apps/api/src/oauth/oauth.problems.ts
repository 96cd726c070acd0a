import { FieldErrorsException, type ParameterError, ProblemException, problemTypes } from "../common/problems";

/** The sign-in pages of the built-in authorization server: its problem types. */
// Entries of one shape in every *.problems.ts, repeated on purpose: data, not logic.
export const OAUTH_PROBLEMS = problemTypes({
  InvalidForm: {
    type: "invalid-form",
    status: 400,
    title: "Invalid form field",
    docs: "A form of the sign-in pages lacks a field or has one too long; `errors` lists every invalid field.",
    requires: ["errors"],
    example: {
      detail: "username must not be empty",
      instance: "/oauth/interaction/abc/login",
      errors: [{ parameter: "username", message: "must not be empty" }],
    },
  },
  InteractionFailed: {
    type: "interaction-failed",
    status: 400,
    title: "Sign-in cannot continue",
    docs: "The sign-in or consent is unknown, expired, already finished, or not bound to this browser.",
    example: { detail: "interaction session id cookie not found", instance: "/oauth/interaction/abc" },
  },
});

/** A form of the sign-in pages that fails validation. */
export class InvalidFormException extends FieldErrorsException {
  constructor(errors: ParameterError[]) {
    super(OAUTH_PROBLEMS.InvalidForm, errors);
  }
}

/** A sign-in or consent step that cannot go on (unknown, expired or finished interaction). */
export class InteractionFailedException extends ProblemException {
  constructor(detail: string) {
    super(OAUTH_PROBLEMS.InteractionFailed, detail);
  }
}
