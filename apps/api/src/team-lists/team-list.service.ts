import type { ListName } from "@community/db/lists";
import {
  ifNoneMatchMatches,
  knownListVersion,
  type ListContentCoding,
  listEntityTag,
  type PageRequest,
  type Pagination,
  pageOffset,
  paginationMeta,
} from "@community/domain";
import type { CallerTeam } from "./current-team.decorator";
import { PageBody, PageCache } from "./page-cache";
import type { TeamListRepository } from "./team-list.repository";
import { NoCommunityTeamException } from "./team-lists.problems";

/** What a list use case needs from the request: the page, the client's cached tag, the body's coding. */
export interface ListRequest extends PageRequest {
  ifNoneMatch?: string | undefined;
  /** The content coding negotiated for the body: each coding has its own tag. */
  coding: ListContentCoding;
}

/** What a list use case hands to the HTTP layer (sendListPage): the body and what the headers need. */
export interface ListPage {
  pagination: Pagination;
  totalItems: number;
  /** Strong tag of this page at the version it was read at, in the negotiated coding (see listEntityTag). */
  etag: string;
  /** The serialized envelope; undefined when the client's tag is current (answer 304). */
  body: PageBody | undefined;
}

/**
 * The use case of every team list: a page of the caller's own team, its envelope and its tag.
 * When the token lookup has read the list's version (Member.lists), a revalidation needs no
 * statement at all and a recently served page comes from the page cache; otherwise, and on a
 * cache miss, one statement reads the page (and its version), and the page is kept for the next.
 */
export class TeamListService<Item> {
  constructor(
    private readonly repository: TeamListRepository<Item>,
    private readonly list: ListName,
    private readonly cache: PageCache,
  ) {}

  /** No input can reach another team's items; a user without a team gets 404 no-community-team. */
  async findPage(team: CallerTeam, request: ListRequest): Promise<ListPage> {
    const { teamId } = team;
    if (teamId === null) throw new NoCommunityTeamException();
    const { ifNoneMatch, coding } = request;
    const knownVersion = knownListVersion(ifNoneMatch, request, coding);
    const state = team.lists?.[this.list];
    if (state !== undefined && state !== null) {
      const etag = listEntityTag(request, state.version, coding);
      if (knownVersion === "*" || knownVersion === state.version || ifNoneMatchMatches(ifNoneMatch, etag)) {
        return { pagination: paginationMeta(request, state.total), totalItems: state.total, etag, body: undefined };
      }
      const cached = this.cache.get(PageCache.key(teamId, this.list, state.version, request.page, request.perPage));
      if (cached !== undefined) {
        const { totalItems, body } = cached;
        return { pagination: paginationMeta(request, totalItems), totalItems, etag, body };
      }
    }
    const { items, total, version, notModified } = await this.repository.findPage({
      teamId,
      offset: pageOffset(request),
      limit: request.perPage,
      knownVersion,
    });
    const pagination = paginationMeta(request, total);
    const etag = listEntityTag(request, version, coding);
    if (notModified || ifNoneMatchMatches(ifNoneMatch, etag)) {
      return { pagination, totalItems: total, etag, body: undefined };
    }
    const body = PageBody.of({ guides: items, meta: { pagination } });
    // Version "0" is that of a list without statistics: it names no list, so it keys nothing.
    if (version !== "0")
      this.cache.set(PageCache.key(teamId, this.list, version, request.page, request.perPage), {
        body,
        totalItems: total,
      });
    return { pagination, totalItems: total, etag, body };
  }
}
