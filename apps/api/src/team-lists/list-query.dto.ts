import { PAGINATION, type PageRequest } from "@community/domain";
import { IsOptional, registerDecorator, type ValidationArguments, type ValidationOptions } from "class-validator";

/**
 * A query parameter that must be a decimal integer in [min, max], written as ASCII digits only
 * (contract section 5): no sign, fraction, exponent, spaces, hex or non-ASCII digits, no silent
 * clamping, and no repetition (Express hands a repeated parameter over as an array).
 */
function IsDecimalIntegerInRange(min: number, max: number, options?: ValidationOptions) {
  return (target: object, propertyName: string) => {
    registerDecorator({
      name: "isDecimalIntegerInRange",
      target: target.constructor,
      propertyName,
      constraints: [min, max],
      options,
      validator: {
        validate(value: unknown) {
          return typeof value === "string" && decimalIntegerInRange(value, min, max) !== undefined;
        },
        defaultMessage(args: ValidationArguments) {
          return Array.isArray(args.value)
            ? "must be given at most once"
            : `must be an integer between ${min} and ${max}`;
        },
      },
    });
  };
}

/** The number `raw` denotes, or undefined when it is not `^[0-9]+$` within [min, max]. */
export function decimalIntegerInRange(raw: string, min: number, max: number): number | undefined {
  if (!/^[0-9]+$/.test(raw)) return undefined;
  // Leading zeros are allowed ("007" is 7); stripping them first keeps huge inputs exact.
  const digits = raw.replace(/^0+(?=\d)/, "");
  if (digits.length > String(max).length) return undefined;
  const value = Number(digits);
  return value >= min && value <= max ? value : undefined;
}

/** Canonical values that are always in bounds: page 1-999999999, per_page 1-100, no leading zeros. */
const COMMON_PAGE = /^[1-9][0-9]{0,8}$/;
const COMMON_PER_PAGE = /^(?:[1-9][0-9]?|100)$/;

/** The pagination query of both list endpoints, as it arrives: strings, validated here. */
export class ListQueryDto {
  /**
   * The common valid query without class-validator (QueryValidationPipe's fast path): nothing
   * but `page` and `per_page`, each absent or canonical and in bounds. Anything else (other
   * parameters, leading zeros, arrays, bad values) is undefined here and goes to class-validator.
   */
  static fromCommonQuery(query: unknown): ListQueryDto | undefined {
    if (typeof query !== "object" || query === null) return undefined;
    const { page, per_page, ...others } = query as Record<string, unknown>;
    if (Object.keys(others).length > 0) return undefined;
    if (page !== undefined && !(typeof page === "string" && COMMON_PAGE.test(page))) return undefined;
    if (per_page !== undefined && !(typeof per_page === "string" && COMMON_PER_PAGE.test(per_page))) return undefined;
    const dto = new ListQueryDto();
    if (page !== undefined) dto.page = page;
    if (per_page !== undefined) dto.per_page = per_page;
    return dto;
  }

  @IsOptional()
  @IsDecimalIntegerInRange(PAGINATION.page.min, PAGINATION.page.max)
  page?: string;

  @IsOptional()
  @IsDecimalIntegerInRange(PAGINATION.perPage.min, PAGINATION.perPage.max)
  per_page?: string;
}

/** Converts a validated query into numbers, applying the defaults. */
export function toPageRequest(query: ListQueryDto): PageRequest {
  const parse = (raw: string | undefined, bounds: { min: number; max: number; default: number }) => {
    if (raw === undefined) return bounds.default;
    const value = decimalIntegerInRange(raw, bounds.min, bounds.max);
    if (value === undefined) throw new TypeError(`toPageRequest got an unvalidated value "${raw}"`);
    return value;
  };
  return {
    page: parse(query.page, PAGINATION.page),
    perPage: parse(query.per_page, PAGINATION.perPage),
  };
}
