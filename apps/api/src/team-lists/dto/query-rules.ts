import { Transform, type TransformFnParams } from "class-transformer";
import { registerDecorator, type ValidationArguments } from "class-validator";

/**
 * The building blocks of the list query DTOs: a transform that turns a valid raw value into its
 * typed form (and leaves anything else as it came), and one class-validator rule per parameter
 * whose message says what is wrong with the value it got. One rule per parameter, so that a
 * problem names each bad parameter once, with the message the contract gives.
 */

/** A parameter given more than once (`?page=1&page=2`): the query parser hands on every value. */
export class RepeatedParameter {
  constructor(readonly values: readonly unknown[]) {}
}

export const REPEATED_MESSAGE = "must be given at most once";

/**
 * `@Transform` of a single-valued parameter: `parse` turns the raw string into the typed value,
 * or returns undefined to leave the string for the rule to name; repeats become RepeatedParameter.
 */
export function SingleValue<T>(parse: (raw: string) => T | undefined): PropertyDecorator {
  return Transform(({ value }: TransformFnParams) => {
    if (Array.isArray(value)) return new RepeatedParameter(value);
    if (typeof value !== "string") return value;
    return parse(value) ?? value;
  });
}

/**
 * A class-validator rule over one parameter: `problem` returns what is wrong with the value (the
 * message of the invalid-query problem), or undefined when it is valid. It sees the whole query
 * object too, for rules between parameters (cursor excludes page, a window's from before its to).
 * Absent parameters are not checked.
 */
export function QueryRule(
  name: string,
  problem: (value: unknown, query: Record<string, unknown>) => string | undefined,
): PropertyDecorator {
  return (target, propertyName) => {
    registerDecorator({
      name,
      target: target.constructor,
      propertyName: propertyName as string,
      validator: {
        validate: (value: unknown, args: ValidationArguments) =>
          value === undefined || problem(value, args.object as Record<string, unknown>) === undefined,
        defaultMessage: (args: ValidationArguments) =>
          problem(args.value, args.object as Record<string, unknown>) ?? "is invalid",
      },
    });
  };
}

/** The number `raw` denotes, or undefined when it is not `^[0-9]+$` within [min, max] (so `007` is 7). */
export function decimalIntegerInRange(raw: string, min: number, max: number): number | undefined {
  if (!/^[0-9]+$/.test(raw)) return undefined;
  // Stripping leading zeros first keeps huge inputs exact.
  const digits = raw.replace(/^0+(?=\d)/, "");
  if (digits.length > String(max).length) return undefined;
  const value = Number(digits);
  return value >= min && value <= max ? value : undefined;
}

/** A decimal integer parameter within bounds (contract section 5): typed as a number once valid. */
export function DecimalInteger(bounds: { min: number; max: number }): PropertyDecorator {
  const transform = SingleValue((raw) => decimalIntegerInRange(raw, bounds.min, bounds.max));
  const rule = QueryRule("decimalInteger", (value) => integerProblem(value, bounds));
  return (target, property) => {
    transform(target, property);
    rule(target, property);
  };
}

/** What is wrong with an integer parameter's value, if anything. */
export function integerProblem(value: unknown, bounds: { min: number; max: number }): string | undefined {
  if (value instanceof RepeatedParameter) return REPEATED_MESSAGE;
  if (typeof value !== "number") return `must be an integer between ${bounds.min} and ${bounds.max}`;
  return undefined;
}

/** An instant of a query's time window: its canonical UTC text and its microseconds since the epoch. */
export interface QueryInstant {
  /** `2026-03-01T17:30:00.5Z`: UTC, the fraction kept to microseconds, trailing zeros dropped. */
  text: string;
  micros: number;
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
  return { text, micros: instant.getTime() * 1000 + Number(fraction.slice(0, 6).padEnd(6, "0")) };
}

function isInstant(value: unknown): value is QueryInstant {
  return typeof value === "object" && value !== null && typeof (value as QueryInstant).micros === "number";
}

/**
 * One bound of a list's time window (contract 9.2): an RFC 3339 date-time, typed as a QueryInstant;
 * `from` must come before `to` (the rule names both).
 */
export function WindowBound(bound: "from" | "to", other: string): PropertyDecorator {
  const transform = SingleValue(parseDateTime);
  const rule = QueryRule("windowBound", (value, query) => {
    if (value instanceof RepeatedParameter) return REPEATED_MESSAGE;
    if (!isInstant(value)) return DATE_TIME_MESSAGE;
    const counterpart = query[other];
    if (!isInstant(counterpart)) return undefined;
    const [from, to] = bound === "from" ? [value, counterpart] : [counterpart, value];
    if (from.micros < to.micros) return undefined;
    return bound === "from" ? `must be before ${other}` : `must be after ${other}`;
  });
  return (target, property) => {
    transform(target, property);
    rule(target, property);
  };
}

/**
 * A list's status filter (contract 9.2): a comma-separated list of the list's status words, typed
 * as those words in the declaration's order, each once.
 */
export function StatusWords(words: readonly string[]): PropertyDecorator {
  const transform = SingleValue((raw) => {
    const asked = raw.split(",");
    if (raw === "" || asked.some((word) => !words.includes(word))) return undefined;
    return words.filter((word) => asked.includes(word));
  });
  const rule = QueryRule("statusWords", (value) => {
    if (value instanceof RepeatedParameter) return REPEATED_MESSAGE;
    if (!Array.isArray(value)) return `must be a comma-separated list of ${words.join(", ")}`;
    return undefined;
  });
  return (target, property) => {
    transform(target, property);
    rule(target, property);
  };
}
