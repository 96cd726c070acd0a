import { buildLinkHeader } from "@community/domain";
import type { Request, Response } from "express";
import type { ListPage, ListRequest } from "./team-list.service";

/**
 * Writes a list page with the contract's headers (section 5): Link, X-Total-Count, ETag,
 * Cache-Control and Vary, then the body in the negotiated coding, or 304 without a body when the
 * client's tag is current. The bytes come ready from the page (and the page cache), so nothing is
 * serialized here; HEAD gets the same headers without a body.
 */
export function sendListPage(request: Request, response: Response, list: ListRequest, page: ListPage): void {
  response.setHeader("Link", buildLinkHeader(request.path, page.pagination));
  response.setHeader("X-Total-Count", String(page.totalItems));
  response.setHeader("ETag", page.etag);
  // Per-user data: any cache must revalidate, and shared caches must not keep it.
  response.setHeader("Cache-Control", "private, no-cache");
  // Appended, not set: CORS adds `Origin` to the same header.
  response.vary("Authorization");
  response.vary("Accept-Encoding");
  if (page.body === undefined) {
    response.status(304).end();
    return;
  }
  const { bytes, coding } = page.body.encoded(list.coding);
  response.setHeader("Content-Type", "application/json; charset=utf-8");
  if (coding !== "identity") response.setHeader("Content-Encoding", coding);
  response.setHeader("Content-Length", bytes.length);
  // HEAD: the length of the body that GET would send, and no body.
  response.status(200).end(request.method === "HEAD" ? undefined : bytes);
}
