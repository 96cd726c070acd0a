import cors from "cors";
import type { RequestHandler } from "express";
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

/** helmet's headers, and CORS (off unless CORS_ORIGINS names origins; it answers preflights itself). */
export function httpHardening(config: AppConfig): RequestHandler[] {
  const hardening: RequestHandler[] = [helmet({ contentSecurityPolicy: API_CONTENT_SECURITY_POLICY })];
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
