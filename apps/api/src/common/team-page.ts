import { type ListEnvelope, type PageRequest, pageOffset, paginationMeta } from "@community/domain";
import type { Member } from "../auth/member";
import { knownListVersion, type ListTagScope, listEntityTag } from "./etag";
import type { ListPage } from "./list-response";
import { NoCommunityTeamException } from "./problems";
import type { TeamListQuery, TeamListResult } from "./team-list-reader";

/** One page of a team's rows, the team's total and the list's version, read from one snapshot. */
export type TeamPageRows<Row> = TeamListResult<Row>;

/** How a repository reads a page: `offset`/`limit` over the list's total order. */
export type TeamPageQuery = TeamListQuery;

/** The caller's team, or 404 no-community-team for a user without one. */
export function requireTeam(member: Member): string {
  if (member.teamId === null) throw new NoCommunityTeamException();
  return member.teamId;
}

/** What a list use case needs from the request: the page and the client's cached tag, if any. */
export interface ListRequest extends PageRequest {
  ifNoneMatch?: string | undefined;
}

export function tagScope(list: ListTagScope["list"], teamId: string, request: PageRequest): ListTagScope {
  return { list, teamId, page: request.page, perPage: request.perPage };
}

export function teamPageQuery(scope: ListTagScope, request: ListRequest): TeamPageQuery {
  return {
    teamId: scope.teamId,
    offset: pageOffset(request),
    limit: request.perPage,
    knownVersion: knownListVersion(request.ifNoneMatch, scope),
  };
}

/** Assembles the envelope of a list page from the rows a repository read. */
export function toListPage<Row, Item>(
  scope: ListTagScope,
  request: PageRequest,
  { rows, total, version, notModified }: TeamPageRows<Row>,
  map: (row: Row) => Item,
): ListPage<Item> {
  const envelope: ListEnvelope<Item> = {
    guides: rows.map(map),
    meta: { pagination: paginationMeta(request, total) },
  };
  return { envelope, totalItems: total, etag: listEntityTag(scope, version), notModified };
}
