import type { IncomingMessage, ServerResponse } from "node:http";
import type { Params } from "nestjs-pino";
import { type DestinationStream, destination as pinoDestination, stdTimeFunctions } from "pino";
import type { Options } from "pino-http";
import type { AppConfig } from "../config/config";
import { requestTraceId } from "../tracing/request-trace";
import { boundedPath } from "./bounded-path";
import { assignRequestId, type RequestWithId } from "./request-id";
import { requestLogLevel } from "./request-log-level";
import { routeTemplate } from "./route-template";

type LoggedRequest = RequestWithId & {
  route?: { path?: unknown };
  baseUrl?: string;
  originalUrl?: string;
  /** Set by the bearer guard (auth/); only its user id is logged. */
  member?: { userId: string };
};

const PROBES = new Set(["/health/live", "/health/ready", "/metrics"]);

/**
 * The request's path without its query. From originalUrl: a middleware mounted on a pattern sees
 * `url` and `path` without the part it matched, and a request it answers (413, 503) is logged there.
 */
function requestPath(request: LoggedRequest): string | undefined {
  return (request.originalUrl ?? request.url)?.split("?")[0];
}

/**
 * The one JSON line written per request. It is built from a fixed list of fields (never the
 * request's headers, cookies or query string), so an Authorization header or a token in a URL
 * cannot reach the logs.
 */
function requestLine(request: LoggedRequest, response: ServerResponse, responseTime: number) {
  // requestId comes from the request's child logger (customAttributeKeys.reqId).
  return {
    method: request.method,
    route: routeTemplate(request),
    path: boundedPath(requestPath(request) ?? ""),
    status: response.statusCode,
    durationMs: responseTime,
    userId: request.member?.userId,
    traceId: requestTraceId(request),
  };
}

/**
 * nestjs-pino / pino-http settings: JSON lines on stdout, or pino-pretty when a person watches
 * a terminal. Probes log at debug, so they stay out of info-level logs.
 */
export function loggerParams(config: AppConfig, destination?: DestinationStream): Params {
  const pretty = destination === undefined && process.stdout.isTTY === true;
  const options: Options<IncomingMessage, ServerResponse> = {
    level: config.logLevel,
    timestamp: stdTimeFunctions.isoTime,
    transport: pretty
      ? { target: require.resolve("pino-pretty"), options: { translateTime: "SYS:HH:MM:ss.l", singleLine: true } }
      : undefined,
    // pino-http's middleware is the first of every request (LoggerModule is global): it sets req.id.
    genReqId: assignRequestId,
    customAttributeKeys: { reqId: "requestId" },
    // Only the fields of requestLine are logged: the request and response objects never are.
    quietReqLogger: true,
    quietResLogger: true,
    wrapSerializers: false,
    serializers: { req: () => undefined, res: () => undefined },
    customLogLevel: (request, response, error) => {
      const level = requestLogLevel(response);
      if (level !== undefined) return level;
      if (error !== undefined || response.statusCode >= 500) return "error";
      return PROBES.has(requestPath(request as LoggedRequest) ?? "") ? "debug" : "info";
    },
    customSuccessMessage: () => "request completed",
    customErrorMessage: () => "request failed",
    customSuccessObject: (request, response, value: { responseTime: number }) =>
      requestLine(request as LoggedRequest, response, value.responseTime),
    customErrorObject: (request, response, _error, value: { responseTime: number }) =>
      requestLine(request as LoggedRequest, response, value.responseTime),
  };
  // stdout without blocking: lines made while a write is under way go out together in the next
  // one (one write(2) for many lines under load, instead of one each). Nothing is held back on
  // purpose, and pino flushes what is pending when the process exits.
  const stream = destination ?? (pretty ? undefined : pinoDestination({ dest: 1, sync: false }));
  return { pinoHttp: stream === undefined ? options : [options, stream], renameContext: "context" };
}
