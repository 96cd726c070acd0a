import { buildLinkHeader, type ListEnvelope } from "@community/domain";
import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from "@nestjs/common";
import type { Request, Response } from "express";
import { map, type Observable } from "rxjs";
import type { ListPage } from "./team-list.service";

/**
 * Writes a list page with the contract's headers (section 5): Link, X-Total-Count, ETag,
 * Cache-Control and Vary, and answers 304 without a body when the client's tag is current. The
 * envelope goes on to Nest, which writes it as application/json; HEAD gets the same headers
 * without a body (Express drops it).
 */
@Injectable()
export class ListPageInterceptor implements NestInterceptor<ListPage<unknown>, ListEnvelope<unknown> | undefined> {
  intercept(
    context: ExecutionContext,
    next: CallHandler<ListPage<unknown>>,
  ): Observable<ListEnvelope<unknown> | undefined> {
    const http = context.switchToHttp();
    const request = http.getRequest<Request>();
    const response = http.getResponse<Response>();
    return next.handle().pipe(map((page) => writeListPage(request, response, page)));
  }
}

function writeListPage<Item>(
  request: Request,
  response: Response,
  page: ListPage<Item>,
): ListEnvelope<Item> | undefined {
  response.setHeader("Link", buildLinkHeader(request.path, page.envelope.meta.pagination));
  response.setHeader("X-Total-Count", String(page.totalItems));
  response.setHeader("ETag", page.etag);
  // Per-user data: any cache must revalidate, and shared caches must not keep it.
  response.setHeader("Cache-Control", "private, no-cache");
  // Appended, not set: CORS adds `Origin` to the same header.
  response.vary("Authorization");
  if (page.notModified) {
    response.status(304);
    return undefined;
  }
  return page.envelope;
}
