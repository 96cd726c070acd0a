import { Inject, Injectable, type NestMiddleware } from "@nestjs/common";
import type { NextFunction, Request, Response } from "express";
import { APP_CONFIG, type AppConfig } from "../config/config";
import { PayloadTooLargeException } from "./security.problems";

/**
 * Refuses a declared body over BODY_LIMIT_BYTES before any handler runs. No route parses bodies
 * (body parsing is off), so an undeclared (chunked) body is never buffered, only discarded.
 */
@Injectable()
export class BodyLimitMiddleware implements NestMiddleware {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  use(request: Request, _response: Response, next: NextFunction): void {
    const declared = request.headers["content-length"];
    if (declared !== undefined && Number(declared) > this.config.bodyLimitBytes) {
      throw new PayloadTooLargeException(this.config.bodyLimitBytes);
    }
    next();
  }
}
