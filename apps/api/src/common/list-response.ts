import type { ListEnvelope } from "@community/domain";
import type { Request, Response } from "express";
import { ifNoneMatchMatches } from "./etag";
import { buildLinkHeader } from "./link-header";

/** What a list use case hands to the HTTP layer: the body and what the headers need. */
export interface ListPage<T> {
  envelope: ListEnvelope<T>;
  totalItems: number;
  /** Strong tag of this page at the version it was read at (see listEntityTag). */
  etag: string;
  /** The client's tag is current: the page was not read and `envelope` holds no items. */
  notModified: boolean;
}

/**
 * Writes a list page with the contract's headers (section 5): Link, X-Total-Count, ETag,
 * Cache-Control and Vary; answers 304 when If-None-Match already names this representation.
 * HEAD gets the same headers without a body (Express drops it).
 */
export function sendListPage<T>(request: Request, response: Response, page: ListPage<T>): void {
  const etag = page.etag;
  response.setHeader("Link", buildLinkHeader(request.path, page.envelope.meta.pagination));
  response.setHeader("X-Total-Count", String(page.totalItems));
  response.setHeader("ETag", etag);
  // Per-user data: any cache must revalidate, and shared caches must not keep it.
  response.setHeader("Cache-Control", "private, no-cache");
  // Appended, not set: CORS adds `Origin` to the same header.
  response.vary("Authorization");
  if (page.notModified || ifNoneMatchMatches(request.header("if-none-match"), etag)) {
    response.status(304).end();
    return;
  }
  response.status(200).type("application/json; charset=utf-8").send(JSON.stringify(page.envelope));
}
