import {
  ifNoneMatchMatches,
  knownListVersion,
  type ListEnvelope,
  listEntityTag,
  type PageRequest,
  pageOffset,
  paginationMeta,
} from "@community/domain";
import type { TeamListRepository } from "./team-list.repository";
import { NoCommunityTeamException } from "./team-lists.problems";

/** What a list use case needs from the request: the page and the client's cached tag, if any. */
export interface ListRequest extends PageRequest {
  ifNoneMatch?: string | undefined;
}

/** What a list use case hands to the HTTP layer (ListPageInterceptor): the body and what the headers need. */
export interface ListPage<Item> {
  envelope: ListEnvelope<Item>;
  totalItems: number;
  /** Strong tag of this page at the version it was read at (see listEntityTag). */
  etag: string;
  /** The client's tag is current: answer 304 (`envelope` then holds no items). */
  notModified: boolean;
}

/** The use case of every team list: a page of the caller's own team, its envelope and its tag. */
export class TeamListService<Item> {
  constructor(private readonly repository: TeamListRepository<Item>) {}

  /** No input can reach another team's items; a user without a team gets 404 no-community-team. */
  async findPage(teamId: string | null, request: ListRequest): Promise<ListPage<Item>> {
    if (teamId === null) throw new NoCommunityTeamException();
    const { ifNoneMatch } = request;
    const { items, total, version, notModified } = await this.repository.findPage({
      teamId,
      offset: pageOffset(request),
      limit: request.perPage,
      knownVersion: knownListVersion(ifNoneMatch, request),
    });
    const etag = listEntityTag(request, version);
    return {
      envelope: { guides: items, meta: { pagination: paginationMeta(request, total) } },
      totalItems: total,
      etag,
      notModified: notModified || ifNoneMatchMatches(ifNoneMatch, etag),
    };
  }
}
