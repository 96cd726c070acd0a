import type { ServerResponse } from "node:http";
import type { Logger } from "pino";
import { redactSecretPaths } from "../common/secret-paths";
import { requestTraceId } from "../tracing/request-trace";
import { boundedPath } from "./bounded-path";
import type { RequestWithId } from "./request-id";
import { requestLogLevel } from "./request-log-level";
import { routeTemplate } from "./route-template";

export type LoggedRequest = RequestWithId & {
  route?: { path?: unknown };
  baseUrl?: string;
  originalUrl?: string;
  /** Set by the bearer guard (auth/); only its user id is logged. */
  user?: { userId: string };
};

const PROBES = new Set(["/health/live", "/health/ready", "/metrics"]);

/**
 * The request's path without its query, secrets replaced (a calendar feed's). From originalUrl: a
 * middleware mounted on a pattern sees `url` and `path` without the part it matched, and a request
 * it answers (413, 503) is logged there.
 */
function requestPath(request: LoggedRequest): string {
  const url = request.originalUrl ?? request.url ?? "";
  const query = url.indexOf("?");
  return redactSecretPaths(query === -1 ? url : url.slice(0, query));
}

/**
 * The one JSON line written per request, by the root logger once the response is closed. It is
 * built from a fixed list of fields (never the request's headers, cookies or query string), so an
 * Authorization header or a token in a URL cannot reach the logs. 5xx responses log at error,
 * the probes at debug, a request marked by logRequestAtDebug/logRequestAtWarn at that level.
 */
export function writeRequestLine(
  root: Logger,
  request: LoggedRequest,
  response: ServerResponse,
  durationMs: number,
): void {
  const path = requestPath(request);
  const failed = response.statusCode >= 500;
  const level = requestLogLevel(response) ?? (failed ? "error" : PROBES.has(path) ? "debug" : "info");
  if (!root.isLevelEnabled(level)) return;
  root[level](
    {
      requestId: request.id,
      method: request.method,
      route: routeTemplate(request),
      path: boundedPath(path),
      status: response.statusCode,
      durationMs,
      userId: request.user?.userId,
      traceId: requestTraceId(request),
    },
    failed ? "request failed" : "request completed",
  );
}
