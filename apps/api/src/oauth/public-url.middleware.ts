import { Inject, Injectable, type NestMiddleware } from "@nestjs/common";
import type { NextFunction, Request, Response } from "express";
import { APP_CONFIG, type AppConfig } from "../config/config";

/**
 * oidc-provider builds every URL it emits (discovery, redirects, the sign-out form) and decides
 * whether its cookies are Secure from the request (Koa's host and protocol). Before any of it sees
 * a request under /oauth, the request is made to name PUBLIC_URL's host and scheme (the provider
 * trusts X-Forwarded-Host/-Proto, which are only ever these values), so a client's Host header
 * cannot choose the URLs (RFC 8414 section 2), and an https PUBLIC_URL behind a TLS proxy gives
 * https endpoints and Secure cookies.
 */
@Injectable()
export class PublicUrlMiddleware implements NestMiddleware {
  private readonly host: string;
  private readonly protocol: string;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    const url = new URL(config.oauth.publicUrl);
    this.host = url.host;
    this.protocol = url.protocol.slice(0, -1);
  }

  use(request: Request, _response: Response, next: NextFunction): void {
    request.headers.host = this.host;
    request.headers["x-forwarded-host"] = this.host;
    request.headers["x-forwarded-proto"] = this.protocol;
    next();
  }
}
