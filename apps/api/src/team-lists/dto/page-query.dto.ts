import { PAGINATION } from "@community/domain";
import {
  DecimalInteger,
  decimalIntegerInRange,
  integerProblem,
  QueryRule,
  REPEATED_MESSAGE,
  RepeatedParameter,
  SingleValue,
} from "./query-rules";

const { page: PAGE, perPage: PER_PAGE } = PAGINATION;

/**
 * The paging parameters every list takes (contract sections 5 and 9.1): a page of `per_page`
 * items, or a cursor walk. Validated once by the global ValidationPipe (class-transformer, then
 * class-validator) and handed on as numbers. `cursor` and `page` exclude each other.
 */
export class PageQueryDto {
  @DecimalInteger(PER_PAGE)
  per_page: number = PER_PAGE.default;

  /** A cursor of an earlier page's `meta.pagination.next_cursor`; empty starts a walk. */
  @SingleValue((raw) => raw)
  @QueryRule("cursor", (value, query) => {
    if (value instanceof RepeatedParameter) return REPEATED_MESSAGE;
    if (typeof value !== "string") return "must be a cursor from meta.pagination.next_cursor";
    return query.page === undefined ? undefined : "cannot be combined with page";
  })
  cursor?: string;

  /** Absent: the first page (left undefined here, so that the cursor's rule can tell it was not given). */
  @SingleValue((raw) => decimalIntegerInRange(raw, PAGE.min, PAGE.max))
  @QueryRule(
    "page",
    (value, query) =>
      integerProblem(value, PAGE) ?? (query.cursor === undefined ? undefined : "cannot be combined with cursor"),
  )
  page?: number;
}
