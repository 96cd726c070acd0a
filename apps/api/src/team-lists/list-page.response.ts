import { buildCursorLinkHeader, buildLinkHeader, type ListContentCoding } from "@community/domain";
import type { Request, Response } from "express";
import type { PageBody } from "./page-cache";
import type { CursorPage, ListPage } from "./team-lists.service";

/**
 * Writes a list page with the contract's headers: in page mode (section 5) Link, X-Total-Count and
 * ETag, or 304 without a body when the client's tag is current; in cursor mode (9.1) a Link with
 * rel="next" only while more items follow. Then Cache-Control and Vary, and the body in the
 * negotiated coding. The bytes come ready from the page (and the page cache), so nothing is
 * serialized here; HEAD gets the same headers without a body.
 */
export function sendListPage(
  request: Request,
  response: Response,
  coding: ListContentCoding,
  page: ListPage | CursorPage,
): void {
  if (page.mode === "page") {
    response.setHeader("Link", buildLinkHeader(request.path, page.pagination, page.carried));
    response.setHeader("X-Total-Count", String(page.totalItems));
    response.setHeader("ETag", page.etag);
  } else if (page.nextCursor !== null) {
    response.setHeader("Link", buildCursorLinkHeader(request.path, page.nextCursor, page.perPage, page.carried));
  }
  sendPrivateJson(request, response, coding, page.body);
}

/**
 * Cache-Control and Vary of per-user data, then `body` in `coding` (304 without a body when
 * undefined). HEAD: the length of the body that GET would send, and no body.
 */
export function sendPrivateJson(
  request: Request,
  response: Response,
  coding: ListContentCoding,
  body: PageBody | undefined,
): void {
  // Per-user data: any cache must revalidate, and shared caches must not keep it.
  response.setHeader("Cache-Control", "private, no-cache");
  // Appended, not set: CORS adds `Origin` to the same header.
  response.vary("Authorization");
  response.vary("Accept-Encoding");
  if (body === undefined) {
    response.status(304).end();
    return;
  }
  // The headers from the measure (a HEAD decompresses nothing), the body in the same form for GET.
  const sent = body.measured(coding);
  response.setHeader("Content-Type", "application/json; charset=utf-8");
  if (sent.coding !== "identity") response.setHeader("Content-Encoding", sent.coding);
  response.setHeader("Content-Length", sent.length);
  response.status(200).end(request.method === "HEAD" ? undefined : body.encoded(coding).bytes);
}
