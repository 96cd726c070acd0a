import type { Change, CursorPagination, Pagination } from "./wire.ts";

/**
 * The shapes a list of the client is used through (`Collection`): its pages, its walks, its
 * changes and the store that `sync()` keeps. `client.ts` builds collections and `sync.ts` drives
 * one; both take the shapes from here.
 */

export interface ListOptions<F> {
  /** Page mode (contract section 5). */
  page?: number;
  /** Cursor mode (contract 9.1): `""` for the first page, then a page's `nextCursor`. */
  cursor?: string;
  perPage?: number;
  filters?: F;
  /** An ETag of an earlier page: the result is `{ notModified: true }` when it still matches. */
  ifNoneMatch?: string;
  signal?: AbortSignal;
}

interface PageBase<T> {
  notModified: false;
  items: T[];
  etag: string | undefined;
  /** Link header targets by relation (first, prev, next, last), as absolute URLs. */
  links: Partial<Record<"first" | "prev" | "next" | "last", string>>;
}

export interface ListPage<T> extends PageBase<T> {
  mode: "page";
  pagination: Pagination;
  /** X-Total-Count: the number of items of the (filtered) list; undefined when the header is missing. */
  totalCount: number | undefined;
}

export interface CursorPage<T> extends PageBase<T> {
  mode: "cursor";
  pagination: CursorPagination;
  /** The cursor of the next page; null on the last one. */
  nextCursor: string | null;
}

export interface NotModified {
  notModified: true;
  etag: string | undefined;
}

export type ListResult<T> = ListPage<T> | CursorPage<T> | NotModified;

export interface WalkOptions<T, F> {
  perPage?: number;
  filters?: F;
  signal?: AbortSignal;
  onPage?: (page: ListPage<T> | CursorPage<T>) => void;
}

export interface ChangesOptions {
  /** A token from an earlier response's `next`; without it the answer is the token of "now". */
  since?: string;
  perPage?: number;
  signal?: AbortSignal;
}

export interface ChangesPage<T> {
  changes: Change<T>[];
  /** The token to ask with next time. */
  next: string;
  /** More changes are waiting: ask again at once with `next`. */
  hasMore: boolean;
}

export interface Collection<T, F> {
  list(options?: ListOptions<F>): Promise<ListResult<T>>;
  /**
   * Every item of the team (or of the filters), page after page: a cursor walk (contract 9.1),
   * or, from an api without cursor mode, the Link header's rel="next" on the same origin.
   */
  all(options?: WalkOptions<T, F>): AsyncIterable<T>;
  /** One page of the changes since a token (contract 9.3). */
  changes(options?: ChangesOptions): Promise<ChangesPage<T>>;
  /** Brings `store` up to date: a full walk the first time and after a 410, the changes since its token after. */
  sync(store: SyncStore<T>, options?: SyncOptions): Promise<SyncResult>;
}

type MaybePromise<T> = T | Promise<T>;

/** A caller's copy of one list, kept current by `sync()`. */
export interface SyncStore<T> {
  /** The token saved by the last sync; undefined before the first. */
  getToken(): MaybePromise<string | undefined>;
  /** Saved after a complete full walk and after each page of changes has been applied. */
  setToken(token: string): MaybePromise<void>;
  /** Forget every item: a full walk follows (the first sync, or after 410 sync-expired). */
  clear(): MaybePromise<void>;
  /** Insert or replace the item with this id (applying one twice is harmless). */
  upsert(item: T & { id: string }): MaybePromise<void>;
  remove(id: string): MaybePromise<void>;
}

export interface SyncOptions {
  perPage?: number;
  signal?: AbortSignal;
}

export interface SyncResult {
  /** True when the store was rebuilt by a full walk (first sync or expired token). */
  full: boolean;
  upserts: number;
  deletes: number;
  /** The token now saved in the store. */
  token: string;
}
