import { CHANGES_WAIT, PAGINATION } from "@community/domain";
import {
  DecimalInteger,
  decimalIntegerInRange,
  integerProblem,
  QueryRule,
  REPEATED_MESSAGE,
  RepeatedParameter,
  SingleValue,
} from "./query-rules";

/** The query of a list's changes feed (contract 9.3): a sync token to read from, and a page size. */
export class ChangesQueryDto {
  @DecimalInteger(PAGINATION.perPage)
  per_page: number = PAGINATION.perPage.default;

  /** A token from `meta.sync.next` of an earlier response; absent: the changes since now (none). */
  @SingleValue((raw) => (raw === "" ? undefined : raw))
  @QueryRule("since", (value) => {
    if (value instanceof RepeatedParameter) return REPEATED_MESSAGE;
    return typeof value === "string" && value !== ""
      ? undefined
      : "must be a token from meta.sync.next of an earlier response";
  })
  since?: string;

  /** Seconds to hold the request while nothing has changed since `since` (contract 10.1); only with `since`. */
  @SingleValue((raw) => decimalIntegerInRange(raw, CHANGES_WAIT.min, CHANGES_WAIT.max))
  @QueryRule("wait", (value, query) => {
    const problem = integerProblem(value, CHANGES_WAIT);
    if (problem !== undefined) return problem;
    return query.since === undefined ? "can only be given together with since" : undefined;
  })
  wait?: number;
}
