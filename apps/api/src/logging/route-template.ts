/** Requests that matched no route share one label, so random paths cannot grow a series or a log field. */
export const UNMATCHED_ROUTE = "unmatched";

interface RoutedRequest {
  route?: { path?: unknown };
  baseUrl?: string;
}

/**
 * The template of the route that answered (`/v1/me/community/team/events`), never the raw URL.
 * A wildcard route is one of the catch-all middleware mounts, which Express leaves on requests
 * that no controller matched.
 */
export function routeTemplate(request: RoutedRequest): string {
  const path = request.route?.path;
  return typeof path === "string" && !path.includes("*") ? (request.baseUrl ?? "") + path : UNMATCHED_ROUTE;
}
