import { type ListEnvelope, type PageRequest, pageOffset, paginationMeta } from "@community/domain";
import type { Member } from "../auth/member";
import type { ListPage } from "./list-response";
import { NoCommunityTeamException } from "./problems";

/** One page of a team's rows and the team's total, read from one snapshot. */
export interface TeamPageRows<Row> {
  rows: Row[];
  total: number;
}

/** How a repository reads a page: `offset`/`limit` over the list's total order. */
export interface TeamPageQuery {
  teamId: string;
  offset: number;
  limit: number;
}

/** The caller's team, or 404 no-community-team for a user without one. */
export function requireTeam(member: Member): string {
  if (member.teamId === null) throw new NoCommunityTeamException();
  return member.teamId;
}

export function teamPageQuery(teamId: string, request: PageRequest): TeamPageQuery {
  return { teamId, offset: pageOffset(request), limit: request.perPage };
}

/** Assembles the envelope of a list page from the rows a repository read. */
export function toListPage<Row, Item>(
  request: PageRequest,
  { rows, total }: TeamPageRows<Row>,
  map: (row: Row) => Item,
): ListPage<Item> {
  const envelope: ListEnvelope<Item> = {
    guides: rows.map(map),
    meta: { pagination: paginationMeta(request, total) },
  };
  return { envelope, totalItems: total };
}
