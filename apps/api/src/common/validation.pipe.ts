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

const DECLARED = new WeakMap<object, Map<string, number>>();

/**
 * The parameters a DTO declares (those with a class-validator decorator), each with its place:
 * a base class's parameters first (the paging ones before a list's filters), then in the order
 * the class declares them. Read from the metadata once per DTO class.
 */
function declaredParameters(metatype: ArgumentMetadata["metatype"]): Map<string, number> {
  if (metatype === undefined) return new Map();
  let declared = DECLARED.get(metatype);
  if (declared === undefined) {
    const classes: ArgumentMetadata["metatype"][] = [];
    for (let type = metatype; type !== undefined && type !== Function.prototype; type = Object.getPrototypeOf(type))
      classes.unshift(type);
    declared = new Map();
    for (const type of classes)
      for (const metadata of getMetadataStorage().getTargetValidationMetadatas(
        type as new () => object,
        "",
        true,
        false,
      ))
        if (!declared.has(metadata.propertyName)) declared.set(metadata.propertyName, declared.size);
    DECLARED.set(metatype, declared);
  }
  return declared;
}

/** `errors` in the order their DTO declares the parameters. */
function inDeclaredOrder(errors: ParameterError[], declared: Map<string, number>): ParameterError[] {
  const place = (error: ParameterError) => declared.get(error.parameter) ?? declared.size;
  return [...errors].sort((a, b) => place(a) - place(b));
}

/**
 * A declared parameter sent in bracket form (`page[]=1`, `page[a]=1`): node:querystring keeps the
 * name as sent, so whitelisting would silently drop it and answer as if it were absent, while
 * the client asked for something. It is an invalid-query error naming the parameter.
 */
function bracketedParameters(query: unknown, declared: Map<string, number>): ParameterError[] {
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
    const declared = declaredParameters(metadata.metatype);
    const bracketed = bracketedParameters(value, declared);
    let invalid: ParameterError[] = [];
    try {
      const query = await super.transform(value, metadata);
      if (bracketed.length === 0) return query;
    } catch (error) {
      if (!(error instanceof InvalidQueryException)) throw error;
      invalid = inDeclaredOrder(error.errors, declared);
      if (bracketed.length === 0) throw new InvalidQueryException(invalid);
    }
    // One error per parameter: a value that is invalid already says so.
    const named = new Set(invalid.map((error) => error.parameter));
    throw new InvalidQueryException([...invalid, ...bracketed.filter((error) => !named.has(error.parameter))]);
  }
}
