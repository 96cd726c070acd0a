import { ValidationPipe } from "@nestjs/common";
import { validationOptions } from "../common/validation.pipe";
import { InvalidFormException } from "./oauth.problems";

/** Validates a sign-in form body; an invalid one is an invalid-form problem naming every bad field. */
export class FormValidationPipe extends ValidationPipe {
  constructor() {
    super(validationOptions((errors) => new InvalidFormException(errors)));
  }
}
