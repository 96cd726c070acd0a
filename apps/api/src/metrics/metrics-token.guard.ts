import { createHash, timingSafeEqual } from "node:crypto";
import { type CanActivate, type ExecutionContext, Inject, Injectable, Logger } from "@nestjs/common";
import type { Request } from "express";
import { NotFoundProblemException } from "../common/problems";
import { APP_CONFIG, type AppConfig } from "../config/config";
import { MetricsUnauthorizedException } from "./metrics.problems";

const digest = (value: string) => createHash("sha256").update(value).digest();

/**
 * With METRICS_TOKEN set, scrapes must send it as a bearer token. Without it /metrics is open,
 * except in production (NODE_ENV=production), where it is not served at all: the api's public port
 * must not publish its internals because a Secret was forgotten.
 */
@Injectable()
export class MetricsTokenGuard implements CanActivate {
  private readonly expected: Buffer | undefined;
  private readonly closed: boolean;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.expected = config.metricsToken === undefined ? undefined : digest(config.metricsToken);
    this.closed = config.production && this.expected === undefined;
    if (this.closed) {
      new Logger("Metrics").warn("NODE_ENV=production and no METRICS_TOKEN: GET /metrics answers 404 until it is set");
    }
  }

  canActivate(context: ExecutionContext): boolean {
    if (this.closed) throw new NotFoundProblemException("GET /metrics is off: set METRICS_TOKEN to serve it");
    if (this.expected === undefined) return true;
    const header = context.switchToHttp().getRequest<Request>().headers.authorization ?? "";
    const match = /^\s*bearer\s+(\S+)\s*$/i.exec(header);
    // Digests have equal lengths, so the comparison is constant-time whatever was sent.
    if (match?.[1] !== undefined && timingSafeEqual(digest(match[1]), this.expected)) return true;
    throw new MetricsUnauthorizedException();
  }
}
