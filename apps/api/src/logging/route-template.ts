/** Requests that matched no route share one label, so random paths cannot grow a series or a log field. */
export const UNMATCHED_ROUTE = "unmatched";

/** Where a catch-all handler that knows the real route (the authorization server's) names it. */
export const ROUTE_LABEL = Symbol("route label");

export interface LabelledRequest {
  [ROUTE_LABEL]?: string;
}

interface RoutedRequest extends LabelledRequest {
  route?: { path?: unknown };
  baseUrl?: string;
}

/**
 * The template of the route that answered (`/v1/me/community/team/events`), never the raw URL.
 * A wildcard route is one of the catch-all middleware mounts, which Express leaves on requests
 * that no controller matched.
 */
export function routeTemplate(request: RoutedRequest): string {
  const label = request[ROUTE_LABEL];
  if (label !== undefined) return label;
  const path = request.route?.path;
  return typeof path === "string" && !path.includes("*") ? (request.baseUrl ?? "") + path : UNMATCHED_ROUTE;
}
