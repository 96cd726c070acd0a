import { createHash } from "node:crypto";
import type { TeamList } from "@community/db/lists";
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
import { Injectable } from "@nestjs/common";
import { InvalidQueryException } from "../common/problems";
import type { CallerTeam } from "./current-team.decorator";
import type { ListQuery } from "./list-query";
import { ListReaders, type ServedList } from "./list-readers";
import { PageBody, PageCache } from "./page-cache";
import { SignedTokens } from "./signed-tokens";
import { NoCommunityTeamException } from "./team-lists.problems";

/** What the HTTP layer negotiated for a list response. */
export interface ListResponseOptions {
  ifNoneMatch?: string | undefined;
  /** The content coding negotiated for the body: each coding has its own tag. */
  coding: ListContentCoding;
}

/** A page-mode answer (contract section 5): the body and what the headers need. */
export interface ListPage {
  mode: "page";
  pagination: Pagination;
  totalItems: number;
  /** The filters as Link targets carry them ("" for none). */
  carried: string;
  /** Strong tag of this page at the version it was read at, in the negotiated coding (see listEntityTag). */
  etag: string;
  /** The serialized envelope; undefined when the client's tag is current (answer 304). */
  body: PageBody | undefined;
}

/** A cursor-mode answer (9.1): the body, and the cursor of the next page for the Link header. */
export interface CursorPage {
  mode: "cursor";
  perPage: number;
  carried: string;
  nextCursor: string | null;
  body: PageBody;
}

/**
 * The use case of every team list (TEAM_LISTS): pages of the caller's own team in page mode
 * (unfiltered pages from the page cache or one statement, 304 from the token lookup's version),
 * filtered pages and cursor walks (from the page cache too, keyed by the version the token lookup
 * read, or one statement). No input can reach another team's items.
 */
@Injectable()
export class TeamListsService {
  constructor(
    private readonly readers: ListReaders,
    private readonly cache: PageCache,
    private readonly tokens: SignedTokens,
  ) {}

  /** A user without a team gets 404 no-community-team, after the query was found valid. */
  async find<Row extends { id: string }, Item>(
    spec: TeamList<Row, Item>,
    team: CallerTeam,
    query: ListQuery,
    options: ListResponseOptions,
  ): Promise<ListPage | CursorPage> {
    const { teamId } = team;
    // A cursor is bound to a team: without one, none is valid (400 comes before 404).
    if (teamId === null && query.mode === "cursor" && query.cursor !== "") throw invalidCursor();
    if (teamId === null) throw new NoCommunityTeamException();
    const served = this.readers.of(spec);
    if (query.mode === "cursor") return this.walk(served, team, teamId, query);
    if (query.carried !== "") return this.filteredPage(served, team, teamId, query, options);
    return this.plainPage(served, team, teamId, query, options);
  }

  /**
   * A cursor page is a pure function of its team, list, version, filters, position and page size
   * (a cursor is signed without time, so the same position under the same binding always gives
   * the same next cursor): with the version from the token lookup, a page served recently comes
   * from the page cache, cursor included; otherwise one statement reads it with its version, under
   * which it is kept. The cursor is checked first either way (400 for a forged one).
   */
  private async walk<Item>(
    { spec, walks }: ServedList<Item>,
    team: CallerTeam,
    teamId: string,
    query: Extract<ListQuery, { mode: "cursor" }>,
  ): Promise<CursorPage> {
    const binding = { list: spec.list, teamId, filters: query.carried };
    const after = query.cursor === "" ? undefined : this.tokens.openCursor(query.cursor, binding);
    if (query.cursor !== "" && after === undefined) throw invalidCursor();
    const cursorPage = (nextCursor: string | null, body: PageBody): CursorPage => ({
      mode: "cursor",
      perPage: query.perPage,
      carried: query.carried,
      nextCursor,
      body,
    });
    // A walk's first page is page 1 of the cache's key, any later page 0.
    const key = (version: string) =>
      PageCache.key(
        teamId,
        spec.list,
        version,
        after === undefined ? 1 : 0,
        query.perPage,
        JSON.stringify(["cursor", query.carried, after?.key ?? null, after?.id ?? null, after?.ties === true]),
      );
    const state = team.lists?.[spec.list];
    if (state !== undefined && state !== null) {
      const cached = this.cache.get(key(state.version));
      if (cached !== undefined) return cursorPage(cached.nextCursor ?? null, cached.body);
    }
    const page = await walks.keysetPage(teamId, query.filters, after, query.perPage);
    const nextCursor = page.next === undefined ? null : this.tokens.cursor(page.next, binding);
    const body = PageBody.of<Item>({
      guides: page.items,
      meta: { pagination: { per_page: query.perPage, next_cursor: nextCursor } },
    });
    if (page.version !== "0") this.cache.set(key(page.version), { body, totalItems: 0, nextCursor });
    return cursorPage(nextCursor, body);
  }

  /**
   * A filtered page is a pure function of its team, list, version, filters, page and page size
   * (a status or window is a condition on the data, never on the clock): with the version from the
   * token lookup, a page served recently comes from the page cache, and so does its 304 (the tag
   * is the version's, the headers need the cached total); otherwise one statement reads it, with
   * its version, under which it is kept.
   */
  private async filteredPage<Item>(
    { spec, walks }: ServedList<Item>,
    team: CallerTeam,
    teamId: string,
    query: Extract<ListQuery, { mode: "page" }>,
    { ifNoneMatch, coding }: ListResponseOptions,
  ): Promise<ListPage> {
    const variant = createHash("sha256").update(query.carried).digest("base64url").slice(0, 12);
    const key = (version: string) =>
      PageCache.key(teamId, spec.list, version, query.page, query.perPage, JSON.stringify(["filtered", query.carried]));
    const page = (total: number, version: string, body: PageBody): ListPage => {
      const etag = listEntityTag(query, version, coding, variant);
      return {
        mode: "page",
        pagination: paginationMeta(query, total),
        totalItems: total,
        carried: query.carried,
        etag,
        body: ifNoneMatchMatches(ifNoneMatch, etag) ? undefined : body,
      };
    };
    const state = team.lists?.[spec.list];
    if (state !== undefined && state !== null) {
      const cached = this.cache.get(key(state.version));
      if (cached !== undefined) return page(cached.totalItems, state.version, cached.body);
    }
    const { items, total, version } = await walks.filteredPage(teamId, query.filters, pageOffset(query), query.perPage);
    const body = PageBody.of<Item>({ guides: items, meta: { pagination: paginationMeta(query, total) } });
    if (version !== "0") this.cache.set(key(version), { body, totalItems: total });
    return page(total, version, body);
  }

  /**
   * When the token lookup has read the list's version (CallerTeam.lists), a revalidation needs no
   * statement at all and a recently served page comes from the page cache; otherwise, and on a
   * cache miss, one statement reads the page (and its version), and the page is kept for the next.
   */
  private async plainPage<Item>(
    { spec, pages }: ServedList<Item>,
    team: CallerTeam,
    teamId: string,
    request: PageRequest,
    { ifNoneMatch, coding }: ListResponseOptions,
  ): Promise<ListPage> {
    const page = (pagination: Pagination, totalItems: number, etag: string, body: PageBody | undefined): ListPage => ({
      mode: "page",
      pagination,
      totalItems,
      carried: "",
      etag,
      body,
    });
    const knownVersion = knownListVersion(ifNoneMatch, request, coding);
    const state = team.lists?.[spec.list];
    if (state !== undefined && state !== null) {
      const etag = listEntityTag(request, state.version, coding);
      if (knownVersion === "*" || knownVersion === state.version || ifNoneMatchMatches(ifNoneMatch, etag)) {
        return page(paginationMeta(request, state.total), state.total, etag, undefined);
      }
      const cached = this.cache.get(PageCache.key(teamId, spec.list, state.version, request.page, request.perPage));
      if (cached !== undefined) {
        return page(paginationMeta(request, cached.totalItems), cached.totalItems, etag, cached.body);
      }
    }
    const { items, total, version, notModified } = await pages.read({
      teamId,
      offset: pageOffset(request),
      limit: request.perPage,
      knownVersion,
    });
    const pagination = paginationMeta(request, total);
    const etag = listEntityTag(request, version, coding);
    if (notModified || ifNoneMatchMatches(ifNoneMatch, etag)) return page(pagination, total, etag, undefined);
    const body = PageBody.of<Item>({ guides: items, meta: { pagination } });
    // Version "0" is that of a list without statistics: it names no list, so it keys nothing.
    if (version !== "0")
      this.cache.set(PageCache.key(teamId, spec.list, version, request.page, request.perPage), {
        body,
        totalItems: total,
      });
    return page(pagination, total, etag, body);
  }
}

function invalidCursor(): InvalidQueryException {
  return new InvalidQueryException([
    { parameter: "cursor", message: "is not a cursor of this list, team and filters (altered, truncated or forged)" },
  ]);
}
