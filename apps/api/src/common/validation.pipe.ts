import { type ValidationError, ValidationPipe } from "@nestjs/common";
import { InvalidQueryException } from "./problems";

/**
 * Validates query DTOs with class-validator and reports every invalid parameter at once.
 * Unknown parameters are dropped (whitelist), not rejected: the contract ignores them.
 */
export function createQueryValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    transform: true,
    whitelist: true,
    forbidNonWhitelisted: false,
    validationError: { target: false, value: false },
    exceptionFactory: (errors: ValidationError[]) =>
      new InvalidQueryException(
        errors.map((error) => ({
          parameter: error.property,
          message: Object.values(error.constraints ?? {})[0] ?? "is invalid",
        })),
      ),
  });
}
