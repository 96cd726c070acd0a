import type { TransformFnParams } from "class-transformer";
import { type ValidationArguments, ValidatorConstraint, type ValidatorConstraintInterface } from "class-validator";

/**
 * What the query DTOs need beyond class-validator's own decorators: the transforms that read a raw
 * query value (`@Transform(singleValue(...))`), and the constraints the built-ins lack (a parameter
 * given once, two parameters that exclude or need each other, the order of a window's bounds),
 * used with `@Validate(Constraint, [...])` as class-validator documents.
 *
 * class-validator checks a property's rules from the decorator nearest to it outwards, and the
 * problem names the first rule that fails: so each DTO writes `@Validate(GivenOnce)` nearest to the
 * property, then the value's own rules, and the rules between parameters outermost.
 */

/** A parameter given more than once (`?page=1&page=2`): the query parser hands on every value. */
export class RepeatedParameter {
  constructor(readonly values: readonly unknown[]) {}
}

/**
 * `@Transform` of a single-valued query parameter: `parse` turns the raw string into the typed
 * value, or returns undefined to leave the string for the rules to name; repeats become a
 * RepeatedParameter (which GivenOnce names).
 */
export function singleValue<T>(parse: (raw: string) => T | undefined): (params: TransformFnParams) => unknown {
  return ({ value }) => {
    if (Array.isArray(value)) return new RepeatedParameter(value);
    if (typeof value !== "string") return value;
    return parse(value) ?? value;
  };
}

/**
 * The number a decimal integer parameter denotes (`^[0-9]+$`, so `007` is 7), or undefined for
 * anything else (`+5`, ` 5`, `1e2`, `0x10`, `1.0`, full-width digits): `@IsInt`, `@Min` and
 * `@Max` then judge the number, or name the string.
 */
export function decimalInteger(raw: string): number | undefined {
  return /^[0-9]+$/.test(raw) ? Number(raw) : undefined;
}

/** The message of an integer parameter out of its bounds, or not an integer (contract section 5). */
export function integerMessage(bounds: { min: number; max: number }): string {
  return `must be an integer between ${bounds.min} and ${bounds.max}`;
}

/** A comma-separated list parameter (`status=live,canceled`) as its words, each then checked by `@IsIn`. */
export function commaSeparated(raw: string): string[] {
  return raw.split(",");
}

@ValidatorConstraint({ name: "givenOnce" })
export class GivenOnce implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return !(value instanceof RepeatedParameter);
  }

  defaultMessage(): string {
    return "must be given at most once";
  }
}

/** `@Validate(AbsentWith, ["page"])`: the parameter cannot come together with the one named. */
@ValidatorConstraint({ name: "absentWith" })
export class AbsentWith implements ValidatorConstraintInterface {
  validate(_value: unknown, { object, constraints }: ValidationArguments): boolean {
    return Reflect.get(object, constraints[0]) === undefined;
  }

  defaultMessage({ constraints }: ValidationArguments): string {
    return `cannot be combined with ${constraints[0]}`;
  }
}

/** `@Validate(PresentWith, ["since"])`: the parameter can only come together with the one named. */
@ValidatorConstraint({ name: "presentWith" })
export class PresentWith implements ValidatorConstraintInterface {
  validate(_value: unknown, { object, constraints }: ValidationArguments): boolean {
    return Reflect.get(object, constraints[0]) !== undefined;
  }

  defaultMessage({ constraints }: ValidationArguments): string {
    return `can only be given together with ${constraints[0]}`;
  }
}

/** An instant of a query's time window: its canonical UTC text and its microseconds since the epoch. */
export class QueryInstant {
  constructor(
    /** `2026-03-01T17:30:00.5Z`: UTC, the fraction kept to microseconds, trailing zeros dropped. */
    readonly text: string,
    readonly micros: number,
  ) {}
}

/**
 * `@Validate(WindowOrder, ["scheduled_to", "before"])` on a window's `from` (`"after"` on its
 * `to`): the bounds of a half-open window, both given, must be in order (contract 9.2); each
 * bound names the other.
 */
@ValidatorConstraint({ name: "windowOrder" })
export class WindowOrder implements ValidatorConstraintInterface {
  validate(value: unknown, { object, constraints }: ValidationArguments): boolean {
    const other: unknown = Reflect.get(object, constraints[0]);
    if (!(value instanceof QueryInstant) || !(other instanceof QueryInstant)) return true;
    return constraints[1] === "before" ? value.micros < other.micros : other.micros < value.micros;
  }

  defaultMessage({ constraints }: ValidationArguments): string {
    return `must be ${constraints[1]} ${constraints[0]}`;
  }
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;
export const DATE_TIME_MESSAGE = "must be an RFC 3339 date-time with Z or an offset, e.g. 2026-03-01T18:30:00Z";

/**
 * An RFC 3339 date-time (fractional seconds allowed, an offset or Z required) as a QueryInstant;
 * undefined when malformed or not a real date. Written here rather than with a date library:
 * RFC 3339's grammar is one expression, and the microseconds that PostgreSQL keeps must survive
 * (a Date keeps milliseconds).
 */
export function parseDateTime(raw: string): QueryInstant | undefined {
  const match = RFC3339.exec(raw);
  if (match === null) return undefined;
  const [, year, month, day, hour, minute, second, fraction = "", zulu, sign, offsetHour, offsetMinute] = match;
  const [y, mo, d, h, mi, s] = [year, month, day, hour, minute, second].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const offset = zulu !== undefined ? 0 : (sign === "-" ? -1 : 1) * (Number(offsetHour) * 60 + Number(offsetMinute));
  if (
    mo < 1 ||
    mo > 12 ||
    h > 23 ||
    mi > 59 ||
    s > 59 ||
    Number(offsetHour ?? 0) > 23 ||
    Number(offsetMinute ?? 0) > 59
  )
    return undefined;
  const local = Date.UTC(y, mo - 1, d, h, mi, s);
  const check = new Date(local);
  if (check.getUTCFullYear() !== y || check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d) return undefined;
  const instant = new Date(local - offset * 60_000);
  if (Number.isNaN(instant.getTime()) || instant.getUTCFullYear() < 1 || instant.getUTCFullYear() > 9999)
    return undefined;
  const kept = fraction.slice(0, 6).replace(/0+$/, "");
  const text = `${instant.toISOString().slice(0, 19)}${kept === "" ? "" : `.${kept}`}Z`;
  return new QueryInstant(text, instant.getTime() * 1000 + Number(fraction.slice(0, 6).padEnd(6, "0")));
}
