import type { ListFilters } from "@community/db/lists";
import { CHANGES_WAIT, type ListDefinition, PAGINATION } from "@community/domain";
import type { ChangesQueryDto } from "./dto/changes-query.dto";
import type { ListQueryOf } from "./dto/list-query.dto";

/** The filters of a request, validated, with what Link targets and cursors need of them. */
export interface ParsedFilters {
  filters: ListFilters;
  /** The filters as query parameters in canonical form (`&status=live&scheduled_from=...`); "" for none. */
  carried: string;
}

/** A list request's query as the use case takes it: numbers and canonical filters. */
export type ListQuery = ParsedFilters &
  ({ mode: "page"; page: number; perPage: number } | { mode: "cursor"; cursor: string; perPage: number });

export interface ChangesQuery {
  since: string | undefined;
  perPage: number;
  /** Seconds to hold the request while nothing has changed (0: answer at once); only with since. */
  wait: number;
}

/**
 * The use case's ListQuery of a validated DTO: page or cursor mode, the filters in canonical form
 * (status words in the definition's order, each once; instants in UTC) and as Link targets carry them.
 */
export function listQueryOf<D extends ListDefinition>(definition: D, dto: ListQueryOf<D>): ListQuery {
  const fromName: D["window"]["from"] = definition.window.from;
  const toName: D["window"]["to"] = definition.window.to;
  const filters: { status?: string[]; from?: string; to?: string } = {};
  let carried = "";
  if (dto.status !== undefined) {
    const asked = new Set<string>(dto.status);
    filters.status = definition.status.filter((word) => asked.has(word));
    carried += `&status=${encodeURIComponent(filters.status.join(","))}`;
  }
  const from = dto[fromName];
  const to = dto[toName];
  // Encoded: a comma would split a Link header's targets.
  if (from !== undefined) {
    filters.from = from.text;
    carried += `&${fromName}=${encodeURIComponent(from.text)}`;
  }
  if (to !== undefined) {
    filters.to = to.text;
    carried += `&${toName}=${encodeURIComponent(to.text)}`;
  }
  return dto.cursor === undefined
    ? { mode: "page", page: dto.page ?? PAGINATION.page.default, perPage: dto.per_page, filters, carried }
    : { mode: "cursor", cursor: dto.cursor, perPage: dto.per_page, filters, carried };
}

export function changesQueryOf(dto: ChangesQueryDto): ChangesQuery {
  return { since: dto.since, perPage: dto.per_page, wait: dto.wait ?? CHANGES_WAIT.default };
}
