import type { INestApplication } from "@nestjs/common";
import type { NestExpressApplication } from "@nestjs/platform-express";
import helmet from "helmet";
import type { AppConfig } from "../config/config";
import { REQUEST_ID_HEADER } from "../logging/request-id.middleware";

/**
 * The strict policy of a JSON API: nothing may load, nothing may frame it. Routes that serve
 * HTML later (a login page, API docs) set their own Content-Security-Policy on their responses,
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

/** helmet, the proxy setting and CORS (off unless CORS_ORIGINS names origins). */
export function hardenHttp(app: INestApplication, config: AppConfig): void {
  const express = app as NestExpressApplication;
  express.set("trust proxy", config.trustProxy);
  express.use(helmet({ contentSecurityPolicy: API_CONTENT_SECURITY_POLICY }));
  if (config.corsOrigins.length > 0) {
    express.enableCors({
      origin: config.corsOrigins,
      methods: ["GET", "HEAD"],
      allowedHeaders: ["Authorization", "If-None-Match", REQUEST_ID_HEADER],
      exposedHeaders: EXPOSED_HEADERS,
      maxAge: 600,
    });
  }
}
