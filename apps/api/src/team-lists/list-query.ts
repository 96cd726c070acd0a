import type { AnyTeamList, ListFilters } from "@community/db/lists";
import { PAGINATION } from "@community/domain";
import { InvalidQueryException, type ParameterError } from "../common/problems";

/** The filters of a request, validated, with what Link targets and cursors need of them. */
export interface ParsedFilters {
  filters: ListFilters;
  /** The filters as query parameters in canonical form (`&status=live&scheduled_from=...`); "" for none. */
  carried: string;
}

/** A list request's query, validated once: numbers and canonical filters, never strings to check again. */
export type ListQuery = ParsedFilters &
  ({ mode: "page"; page: number; perPage: number } | { mode: "cursor"; cursor: string; perPage: number });

export interface ChangesQuery {
  since: string | undefined;
  perPage: number;
}

type RawQuery = Record<string, unknown>;

/** The number `raw` denotes, or undefined when it is not `^[0-9]+$` within [min, max]. */
export function decimalIntegerInRange(raw: string, min: number, max: number): number | undefined {
  if (!/^[0-9]+$/.test(raw)) return undefined;
  // Leading zeros are allowed ("007" is 7); stripping them first keeps huge inputs exact.
  const digits = raw.replace(/^0+(?=\d)/, "");
  if (digits.length > String(max).length) return undefined;
  const value = Number(digits);
  return value >= min && value <= max ? value : undefined;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;
const DATE_TIME_MESSAGE = "must be an RFC 3339 date-time with Z or an offset, e.g. 2026-03-01T18:30:00Z";

/**
 * An RFC 3339 date-time (fractional seconds allowed, an offset or Z required) as a canonical UTC
 * instant with the fraction kept (`2026-03-01T17:30:00.5Z`) and its microseconds since the epoch
 * (for the from < to check); undefined when malformed or not a real date.
 */
export function parseDateTime(raw: string): { text: string; micros: number } | undefined {
  const match = RFC3339.exec(raw);
  if (match === null) return undefined;
  const [, year, month, day, hour, minute, second, fraction = "", zulu, sign, offsetHour, offsetMinute] = match;
  const fields = [year, month, day, hour, minute, second].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const [y, mo, d, h, mi, s] = fields;
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

/** Reads the query's parameters, collecting every error; each accessor names its parameter. */
class QueryReader {
  readonly errors: ParameterError[] = [];
  private readonly bracketed = new Set<string>();

  constructor(
    private readonly query: RawQuery,
    known: readonly string[],
  ) {
    for (const key of Object.keys(query)) {
      const bracket = key.indexOf("[");
      if (bracket > 0 && known.includes(key.slice(0, bracket))) this.bracketed.add(key.slice(0, bracket));
    }
  }

  /** The parameter's single value; undefined when absent or invalid (the error is recorded). */
  string(name: string): string | undefined {
    const value = this.query[name];
    if (value === undefined) return undefined;
    if (typeof value !== "string") {
      this.fail(name, "must be given at most once");
      return undefined;
    }
    return value;
  }

  integer(name: string, bounds: { min: number; max: number; default: number }): number {
    const raw = this.string(name);
    if (raw === undefined) return bounds.default;
    const value = decimalIntegerInRange(raw, bounds.min, bounds.max);
    if (value === undefined) this.fail(name, `must be an integer between ${bounds.min} and ${bounds.max}`);
    return value ?? bounds.default;
  }

  fail(parameter: string, message: string): void {
    if (!this.errors.some((error) => error.parameter === parameter)) this.errors.push({ parameter, message });
  }

  has(name: string): boolean {
    return this.query[name] !== undefined;
  }

  /** Throws the invalid-query problem naming every bad parameter, bracketed ones last; else nothing. */
  done(): void {
    for (const parameter of this.bracketed)
      this.fail(parameter, `must be given as ${parameter}=<value>, without brackets`);
    if (this.errors.length > 0) throw new InvalidQueryException(this.errors);
  }
}

/** Canonical values that are always in bounds: page 1-999999999, per_page 1-100, no leading zeros. */
const COMMON_PAGE = /^[1-9][0-9]{0,8}$/;
const COMMON_PER_PAGE = /^(?:[1-9][0-9]?|100)$/;

/** The most common query (nothing, or canonical page and per_page) without the general reader. */
function commonQuery(query: RawQuery): ListQuery | undefined {
  let page = PAGINATION.page.default as number;
  let perPage = PAGINATION.perPage.default as number;
  for (const key in query) {
    const value = query[key];
    if (key === "page" && typeof value === "string" && COMMON_PAGE.test(value)) page = Number(value);
    else if (key === "per_page" && typeof value === "string" && COMMON_PER_PAGE.test(value)) perPage = Number(value);
    else return undefined;
  }
  return { mode: "page", page, perPage, filters: {}, carried: "" };
}

/**
 * The query of a list endpoint (contract sections 5, 9.1, 9.2), validated once: an invalid-query
 * problem naming every bad parameter, else page or cursor mode with numbers and canonical filters.
 * Unknown parameters are ignored.
 */
export function parseListQuery(spec: AnyTeamList, query: RawQuery): ListQuery {
  const common = commonQuery(query);
  if (common !== undefined) return common;
  const { from, to } = spec.filters.window;
  const reader = new QueryReader(query, ["page", "per_page", "cursor", "status", from, to]);
  const perPage = reader.integer("per_page", PAGINATION.perPage);
  const cursor = reader.string("cursor");
  const page = reader.integer("page", PAGINATION.page);
  if (cursor !== undefined && reader.has("page")) {
    reader.fail("cursor", "cannot be combined with page");
    reader.fail("page", "cannot be combined with cursor");
  }
  const parsed = parseFilters(spec, reader);
  reader.done();
  return cursor === undefined
    ? { mode: "page", page, perPage, ...parsed }
    : { mode: "cursor", cursor, perPage, ...parsed };
}

function parseFilters(spec: AnyTeamList, reader: QueryReader): ParsedFilters {
  const words = Object.keys(spec.filters.status);
  const { from: fromName, to: toName } = spec.filters.window;
  const filters: { status?: string[]; from?: string; to?: string } = {};
  const carried: string[] = [];
  const status = reader.string("status");
  if (status !== undefined) {
    const asked = status.split(",");
    if (status === "" || asked.some((word) => !words.includes(word))) {
      reader.fail("status", `must be a comma-separated list of ${words.join(", ")}`);
    } else {
      // Canonical: the declaration's order, each word once.
      filters.status = words.filter((word) => asked.includes(word));
      carried.push(`status=${filters.status.join(",")}`);
    }
  }
  const bound = (name: string) => {
    const raw = reader.string(name);
    if (raw === undefined) return undefined;
    const parsed = parseDateTime(raw);
    if (parsed === undefined) reader.fail(name, DATE_TIME_MESSAGE);
    return parsed;
  };
  const from = bound(fromName);
  const to = bound(toName);
  if (from !== undefined && to !== undefined && from.micros >= to.micros) {
    reader.fail(fromName, `must be before ${toName}`);
    reader.fail(toName, `must be after ${fromName}`);
  }
  if (from !== undefined) {
    filters.from = from.text;
    carried.push(`${fromName}=${from.text}`);
  }
  if (to !== undefined) {
    filters.to = to.text;
    carried.push(`${toName}=${to.text}`);
  }
  // Encoded: a comma would split a Link header's targets.
  return {
    filters,
    carried: carried
      .map((pair) => {
        const [name, value] = pair.split("=") as [string, string];
        return `&${name}=${encodeURIComponent(value)}`;
      })
      .join(""),
  };
}

/** The query of a /changes endpoint (contract 9.3). */
export function parseChangesQuery(query: RawQuery): ChangesQuery {
  const reader = new QueryReader(query, ["since", "per_page"]);
  const perPage = reader.integer("per_page", PAGINATION.perPage);
  const since = reader.string("since");
  if (since === "") reader.fail("since", "must be a token from meta.sync.next of an earlier response");
  reader.done();
  return { since, perPage };
}
