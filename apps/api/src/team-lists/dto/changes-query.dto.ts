import { PAGINATION } from "@community/domain";
import { DecimalInteger, QueryRule, REPEATED_MESSAGE, RepeatedParameter, SingleValue } from "./query-rules";

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
}
