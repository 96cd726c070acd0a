import {
  type ArgumentMetadata,
  type ValidationError,
  ValidationPipe,
  type ValidationPipeOptions,
} from "@nestjs/common";
import { getMetadataStorage } from "class-validator";
import { InvalidQueryException, type ParameterError } from "./problems";

/**
 * Validation with class-validator that reports every invalid parameter at once, as the problem
 * `problem` makes of them. Unknown parameters are dropped (whitelist), not rejected: the contract
 * ignores them.
 */
export const validationOptions = (problem: (errors: ParameterError[]) => Error): ValidationPipeOptions => ({
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

/** The parameters a DTO declares (those with a class-validator decorator). */
function declaredParameters(metatype: ArgumentMetadata["metatype"]): Set<string> {
  if (metatype === undefined) return new Set();
  return new Set(
    getMetadataStorage()
      .getTargetValidationMetadatas(metatype, "", true, false)
      .map((metadata) => metadata.propertyName),
  );
}

/**
 * A declared parameter sent in bracket form (`page[]=1`, `page[a]=1`): node:querystring keeps the
 * name as sent, so whitelisting would silently drop it and answer as if it were absent, while
 * the client asked for something. It is an invalid-query error naming the parameter.
 */
function bracketedParameters(query: unknown, declared: Set<string>): ParameterError[] {
  if (typeof query !== "object" || query === null) return [];
  const named = new Set<string>();
  for (const key of Object.keys(query)) {
    const bracket = key.indexOf("[");
    if (bracket > 0 && declared.has(key.slice(0, bracket))) named.add(key.slice(0, bracket));
  }
  return [...named].map((parameter) => ({
    parameter,
    message: `must be given as ${parameter}=<value>, without brackets`,
  }));
}

/**
 * The api's global pipe: validates query DTOs; an invalid one is an invalid-query problem naming
 * every bad parameter, including a declared parameter sent in bracket form. A body is validated by
 * the pipe of the route that reads it (only the sign-in forms take one).
 */
export class QueryValidationPipe extends ValidationPipe {
  constructor() {
    super(validationOptions((errors) => new InvalidQueryException(errors)));
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type !== "query") return value;
    const bracketed = bracketedParameters(value, declaredParameters(metadata.metatype));
    let invalid: ParameterError[] = [];
    try {
      const query = await super.transform(value, metadata);
      if (bracketed.length === 0) return query;
    } catch (error) {
      if (!(error instanceof InvalidQueryException) || bracketed.length === 0) throw error;
      invalid = error.errors;
    }
    // One error per parameter: a value that is invalid already says so.
    const named = new Set(invalid.map((error) => error.parameter));
    throw new InvalidQueryException([...invalid, ...bracketed.filter((error) => !named.has(error.parameter))]);
  }
}
