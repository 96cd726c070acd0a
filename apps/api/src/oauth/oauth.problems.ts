import { FieldErrorsException, type ParameterError, ProblemException } from "../common/problems";

/** A form of the sign-in pages that fails validation. */
export class InvalidFormException extends FieldErrorsException {
  constructor(errors: ParameterError[]) {
    super("InvalidForm", errors);
  }
}

/** A sign-in or consent step that cannot go on (unknown, expired or finished interaction). */
export class InteractionFailedException extends ProblemException {
  constructor(detail: string) {
    super("InteractionFailed", detail);
  }
}
