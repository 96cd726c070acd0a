import type { Pagination } from "./pagination";

/**
 * RFC 8288 Link header of a list page: first and last (no last when there are no pages), prev
 * and next where they exist. Targets are path-absolute references with page and per_page set,
 * so they stay right behind any proxy or host name.
 */
export function buildLinkHeader(
  path: string,
  { current_page, per_page, total_pages }: Pagination,
  /** Further parameters every target carries (the filters, already encoded: `&status=live`). */
  carried = "",
): string {
  const link = (page: number, rel: string) => `<${path}?page=${page}&per_page=${per_page}${carried}>; rel="${rel}"`;
  const links = [link(1, "first")];
  if (current_page > 1) links.push(link(Math.min(current_page - 1, Math.max(total_pages, 1)), "prev"));
  if (current_page < total_pages) links.push(link(current_page + 1, "next"));
  if (total_pages > 0) links.push(link(total_pages, "last"));
  return links.join(", ");
}

/** The Link header of a cursor page with more to come: rel="next" only (contract 9.1). */
export function buildCursorLinkHeader(path: string, cursor: string, perPage: number, carried = ""): string {
  return `<${path}?cursor=${encodeURIComponent(cursor)}&per_page=${perPage}${carried}>; rel="next"`;
}
