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
  /**
   * Long poll (contract 10.1): with `since`, hold the request up to this many whole seconds
   * (0-60) while no change is waiting. The request's timeout grows by as much.
   */
  wait?: number;
  signal?: AbortSignal;
}

/**
 * Told before each retry of a live loop (`follow()`, `sync({ live: true })`): the failure that
 * is retried and the wait before the next try, in ms. For logs; it cannot stop the loop (abort does).
 */
export type RetryListener = (error: unknown, delayMs: number) => void;

export interface FollowOptions {
  /** Where to start: a token from an earlier response's `next`; without it, from now. */
  since?: string;
  perPage?: number;
  /** Seconds each long poll may be held, 0-60. Default 30 (`LIVE_DEFAULTS.waitSeconds`). */
  wait?: number;
  /** Ends the iteration: the request in flight is aborted and the loop returns without an error. */
  signal?: AbortSignal;
  onRetry?: RetryListener;
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
  /** One page of the changes since a token (contract 9.3), held while none is waiting when `wait` is given (10.1). */
  changes(options?: ChangesOptions): Promise<ChangesPage<T>>;
  /**
   * The changes as they commit: long polls (contract 10.1) one after the other, each page handed
   * over as it arrives (an empty one each time a wait runs out, with a `next` to keep; without
   * `since`, first the empty page of "now"), until `signal` aborts; the iteration then ends quietly. 429 and 503 are retried after their
   * Retry-After, network failures, timeouts and other 5xx after a growing, jittered wait;
   * 410 throws `SyncExpiredError` (the caller walks again) and any other failure throws.
   */
  follow(options?: FollowOptions): AsyncIterable<ChangesPage<T>>;
  /**
   * Brings `store` up to date: a full walk the first time and after a 410, the changes since its
   * token after. An abort rejects with the signal's reason.
   */
  sync(store: SyncStore<T>, options?: SyncOptions): Promise<SyncResult>;
  /**
   * A live copy: brings `store` up to date as above, then keeps it so with long polls
   * (`follow()`), applying each change as it commits, until `signal` aborts. The promise then
   * resolves (wherever the abort lands, the request in flight aborted at once); it rejects only
   * on a failure that retrying cannot mend: 401, 403, 404, another 4xx, a malformed response, a
   * limit, or an error of the store. A 410 clears the store and walks again; network failures,
   * timeouts, 429 and 5xx are retried, during the catch-up too, resuming from the saved token.
   */
  sync(store: SyncStore<T>, options: LiveSyncOptions): Promise<LiveSyncResult>;
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
  /** `true` for a live copy (`LiveSyncOptions`). */
  live?: false;
}

export interface LiveSyncOptions {
  live: true;
  /** The only way a live sync ends: abort it to stop. */
  signal: AbortSignal;
  perPage?: number;
  /** Seconds each long poll may be held, 0-60. Default 30 (`LIVE_DEFAULTS.waitSeconds`). */
  wait?: number;
  onRetry?: RetryListener;
}

export interface SyncResult {
  /** True when the store was rebuilt by a full walk (first sync or expired token). */
  full: boolean;
  upserts: number;
  deletes: number;
  /** The token now saved in the store. */
  token: string;
}

/** What a live sync did until it was stopped. */
export interface LiveSyncResult {
  /** True when the store was rebuilt by a full walk at least once (first sync, or after a 410). */
  full: boolean;
  upserts: number;
  deletes: number;
  /**
   * The token this run saved last; undefined when it was stopped before saving any (during the
   * first full walk: the next sync then walks again).
   */
  token: string | undefined;
}
