import {
  type ArgumentMetadata,
  type PipeTransform,
  type ValidationError,
  ValidationPipe,
  type ValidationPipeOptions,
} from "@nestjs/common";
import { InvalidFormException, InvalidQueryException, type ParameterError } from "./problems";

const options = (problem: (errors: ParameterError[]) => Error): ValidationPipeOptions => ({
  transform: true,
  whitelist: true,
  forbidNonWhitelisted: false,
  validationError: { target: false, value: false },
  exceptionFactory: (errors: ValidationError[]) =>
    problem(
      errors.map((error) => ({
        parameter: error.property,
        message: Object.values(error.constraints ?? {})[0] ?? "is invalid",
      })),
    ),
});

/** Validates a query DTO; an invalid one is an invalid-query problem naming every bad parameter. */
export function createQueryValidationPipe(): ValidationPipe {
  return new ValidationPipe(options((errors) => new InvalidQueryException(errors)));
}

/**
 * A query DTO class may recognise its common, valid input itself, cheaper than class-validator and
 * class-transformer; it answers undefined for anything else, which class-validator then judges
 * (and words the 400 for).
 */
export interface CommonQueryFastPath {
  fromCommonQuery(query: unknown): object | undefined;
}

function hasFastPath(metatype: unknown): metatype is CommonQueryFastPath {
  return typeof (metatype as Partial<CommonQueryFastPath> | undefined)?.fromCommonQuery === "function";
}

/**
 * Validates query and form DTOs with class-validator and reports every invalid parameter at once:
 * an invalid-query problem for a query, an invalid-form one for a form body. Unknown parameters
 * are dropped (whitelist), not rejected: the contract ignores them.
 */
export class RequestValidationPipe implements PipeTransform {
  private readonly query = createQueryValidationPipe();
  private readonly form = new ValidationPipe(options((errors) => new InvalidFormException(errors)));

  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if (metadata.type === "query" && hasFastPath(metadata.metatype)) {
      const common = metadata.metatype.fromCommonQuery(value);
      if (common !== undefined) return common;
    }
    return (metadata.type === "body" ? this.form : this.query).transform(value, metadata);
  }
}
