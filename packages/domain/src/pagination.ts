/** Bounds of the list query parameters (contract section 5). */
export const PAGINATION = {
  page: { min: 1, max: 2_147_483_647, default: 1 },
  perPage: { min: 1, max: 100, default: 100 },
} as const;

export interface Pagination {
  /** The page that was asked for, also when it is past the end. */
  current_page: number;
  /** The page size in effect. */
  per_page: number;
  /** `ceil(total_items / per_page)`; `0` when there are no items. */
  total_pages: number;
}

export interface PageMeta {
  pagination: Pagination;
}

/**
 * The body of a list response. Both endpoints put their items in `guides`: that is the source
 * specification's name, also for events.
 */
export interface ListEnvelope<T> {
  guides: T[];
  meta: PageMeta;
}

export interface PageRequest {
  page: number;
  perPage: number;
}

export function totalPages(totalItems: number, perPage: number): number {
  if (!Number.isSafeInteger(totalItems) || totalItems < 0) {
    throw new RangeError(`totalItems must be a non-negative integer, got ${totalItems}`);
  }
  if (!Number.isSafeInteger(perPage) || perPage < 1) {
    throw new RangeError(`perPage must be a positive integer, got ${perPage}`);
  }
  return Math.ceil(totalItems / perPage);
}

/** How many items precede the first item of `page`. */
export function pageOffset({ page, perPage }: PageRequest): number {
  return (page - 1) * perPage;
}

export function paginationMeta(request: PageRequest, totalItems: number): Pagination {
  return {
    current_page: request.page,
    per_page: request.perPage,
    total_pages: totalPages(totalItems, request.perPage),
  };
}

/** `meta.pagination` of a cursor page (contract 9.1): no totals. */
export interface CursorPagination {
  per_page: number;
  /** null on the page that holds the last item. */
  next_cursor: string | null;
}

export interface CursorEnvelope<T> {
  guides: T[];
  meta: { pagination: CursorPagination };
}

/** `wait` of a changes request (contract 10.1): seconds to hold it while nothing has changed. */
export const CHANGES_WAIT = { min: 0, max: 60, default: 0 } as const;

/** `meta.sync` of a changes response (contract 9.3). */
export interface SyncState {
  next: string;
  has_more: boolean;
}

/** One entry of a list's changes: the item's latest state, or its removal from the team. */
export type Change<T> = { op: "upsert"; id: string; item: T } | { op: "delete"; id: string };

export interface ChangesEnvelope<T> {
  changes: Change<T>[];
  meta: { sync: SyncState };
}
