import { Inject, Injectable } from "@nestjs/common";
import cors from "cors";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import helmet from "helmet";
import { ProblemFilter } from "../common/problem.filter";
import type { ProblemException } from "../common/problems";
import { APP_CONFIG, type AppConfig } from "../config/config";
import { REQUEST_ID_HEADER } from "../logging/request-id";
import { logRequestAtWarn } from "../logging/request-log-level";
import { hostHeaderProblem } from "./host-header";
import { queryLimitProblem, repeatedFieldProblem } from "./request-fields";
import { PayloadTooLargeException, RequestTimeoutException } from "./security.problems";

/**
 * The strict policy of a JSON API: nothing may load, nothing may frame it. Routes that serve
 * HTML (the sign-in pages, the API docs) set their own Content-Security-Policy on their responses,
 * which replaces this one.
 */
const API_CONTENT_SECURITY_POLICY = {
  useDefaults: false,
  directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] },
};

const EXPOSED_HEADERS = [
  "Link",
  "X-Total-Count",
  "ETag",
  "RateLimit-Policy",
  "RateLimit",
  "Retry-After",
  REQUEST_ID_HEADER,
];

/**
 * The headers a middleware sets on every response, recorded once. helmet's depend on nothing in
 * the request with this configuration, so one recorded set replaces its dozen middlewares per request.
 */
function recordFixedHeaders(middleware: RequestHandler): ReadonlyArray<readonly [string, string]> {
  const headers = new Map<string, string>();
  const recorder = {
    setHeader: (name: string, value: unknown) => headers.set(name, String(value)),
    removeHeader: (name: string) => headers.delete(name),
    getHeader: (name: string) => headers.get(name),
  };
  let finished = false;
  middleware({ method: "GET", url: "/", headers: {} } as Request, recorder as unknown as Response, () => {
    finished = true;
  });
  if (!finished) throw new Error("the header middleware did not finish synchronously: its headers are not fixed");
  return [...headers];
}

/** Time granted to a request beyond REQUEST_TIMEOUT_MS (ms), by its response. */
const clockExtensions = new WeakMap<Response, number>();

/**
 * Gives a request `ms` more than REQUEST_TIMEOUT_MS before it is answered 503: a changes request
 * held for `wait` seconds (contract 10.1) is not slow, it waits by design.
 */
export function extendRequestClock(response: Response, ms: number): void {
  clockExtensions.set(response, (clockExtensions.get(response) ?? 0) + ms);
}

/**
 * What every request goes through before it is routed, as one step of the request pass
 * (request-pass.middleware.ts):
 * - the REQUEST_TIMEOUT_MS clock: a request still unanswered then gets 503 `unavailable` with
 *   Retry-After, rather than the load balancer's own timeout cutting the connection. It starts
 *   before the guards (rate limit, bearer token), which may wait on Redis or the database too; 503
 *   and not 504, since the api is not a gateway and the contract's 503 already says "retry later";
 * - helmet's headers, recorded once (they depend on nothing in the request), set before anything
 *   can answer, so that a refused body (413) carries them too;
 * - CORS, off unless CORS_ORIGINS names origins (it answers preflights itself);
 * - one of each field read as a single value (Authorization, Host, Content-Type, ...: 400
 *   otherwise), counted in the raw headers before any token is looked up, and a valid
 *   host[:port] (400 otherwise), before any route or library builds a URL from it; both logged at warn;
 * - a query the parser can read whole (at most MAX_QUERY_PARAMETERS: 414 otherwise);
 * - BODY_LIMIT_BYTES on a declared body. No route parses bodies (body parsing is off), so an
 *   undeclared (chunked) body is never buffered, only discarded.
 */
@Injectable()
export class RequestHardening {
  private readonly headers = recordFixedHeaders(helmet({ contentSecurityPolicy: API_CONTENT_SECURITY_POLICY }));
  private readonly cors: RequestHandler | undefined;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly problems: ProblemFilter,
  ) {
    this.cors =
      config.corsOrigins.length === 0
        ? undefined
        : cors({
            origin: config.corsOrigins,
            methods: ["GET", "HEAD"],
            allowedHeaders: ["Authorization", "If-None-Match", REQUEST_ID_HEADER],
            exposedHeaders: EXPOSED_HEADERS,
            maxAge: 600,
          });
  }

  /**
   * Starts the request's REQUEST_TIMEOUT_MS clock; the caller clears it when the response closes
   * (a response emits close once, after finish or when its connection goes first).
   */
  startClock(request: Request, response: Response): () => void {
    const { requestTimeoutMs, retryAfterSeconds } = this.config;
    const ring = () => {
      const extra = clockExtensions.get(response);
      if (extra !== undefined) {
        clockExtensions.delete(response);
        timer = setTimeout(ring, extra);
        timer.unref();
        return;
      }
      this.problems.respond(new RequestTimeoutException(requestTimeoutMs, retryAfterSeconds), request, response);
    };
    let timer = setTimeout(ring, requestTimeoutMs);
    timer.unref();
    return () => clearTimeout(timer);
  }

  /** Sets the fixed headers and checks the request: throws the problem of a bad one, else calls next. */
  check(request: Request, response: Response, next: NextFunction): void {
    const { bodyLimitBytes } = this.config;
    for (const [name, value] of this.headers) response.setHeader(name, value);
    const badHead = repeatedFieldProblem(request) ?? hostHeaderProblem(request);
    if (badHead !== undefined) {
      logRequestAtWarn(response);
      // As for the heads Node's parser refuses (request-head.ts): a client this confused starts afresh.
      response.setHeader("Connection", "close");
      throw badHead;
    }
    const badQuery = queryLimitProblem(request);
    if (badQuery !== undefined) throw badQuery;
    if (this.cors === undefined) this.limitBody(request, bodyLimitBytes, next);
    else
      this.cors(request, response, (error?: unknown) =>
        error ? next(error) : this.limitBody(request, bodyLimitBytes, next),
      );
  }

  /** Answers `problem` at once (the request pass's early refusals). */
  refuse(problem: ProblemException, request: Request, response: Response): void {
    this.problems.respond(problem, request, response);
  }

  private limitBody(request: Request, bodyLimitBytes: number, next: NextFunction): void {
    const declared = request.headers["content-length"];
    if (declared !== undefined && Number(declared) > bodyLimitBytes) throw new PayloadTooLargeException(bodyLimitBytes);
    next();
  }
}
