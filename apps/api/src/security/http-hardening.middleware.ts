import cors from "cors";
import type { Request, RequestHandler, Response } from "express";
import helmet from "helmet";
import type { AppConfig } from "../config/config";
import { REQUEST_ID_HEADER } from "../logging/request-id";

/**
 * The strict policy of a JSON API: nothing may load, nothing may frame it. Routes that serve
 * HTML (the sign-in pages, the API docs) set their own Content-Security-Policy on their responses,
 * which replaces this one.
 */
export const API_CONTENT_SECURITY_POLICY = {
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
export function recordFixedHeaders(middleware: RequestHandler): ReadonlyArray<readonly [string, string]> {
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

/** helmet's headers, and CORS (off unless CORS_ORIGINS names origins; it answers preflights itself). */
export function httpHardening(config: AppConfig): RequestHandler[] {
  const headers = recordFixedHeaders(helmet({ contentSecurityPolicy: API_CONTENT_SECURITY_POLICY }));
  const fixedHeaders: RequestHandler = (_request, response, next) => {
    for (const [name, value] of headers) response.setHeader(name, value);
    next();
  };
  const hardening: RequestHandler[] = [fixedHeaders];
  if (config.corsOrigins.length > 0) {
    hardening.push(
      cors({
        origin: config.corsOrigins,
        methods: ["GET", "HEAD"],
        allowedHeaders: ["Authorization", "If-None-Match", REQUEST_ID_HEADER],
        exposedHeaders: EXPOSED_HEADERS,
        maxAge: 600,
      }),
    );
  }
  return hardening;
}
