import { createHash, timingSafeEqual } from "node:crypto";
import { type CanActivate, type ExecutionContext, Inject, Injectable } from "@nestjs/common";
import type { Request } from "express";
import { APP_CONFIG, type AppConfig } from "../config/config";
import { MetricsUnauthorizedException } from "./metrics.problems";

const digest = (value: string) => createHash("sha256").update(value).digest();

/** With METRICS_TOKEN set, scrapes must send it as a bearer token; without it /metrics is open. */
@Injectable()
export class MetricsTokenGuard implements CanActivate {
  private readonly expected: Buffer | undefined;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.expected = config.metricsToken === undefined ? undefined : digest(config.metricsToken);
  }

  canActivate(context: ExecutionContext): boolean {
    if (this.expected === undefined) return true;
    const header = context.switchToHttp().getRequest<Request>().headers.authorization ?? "";
    const match = /^\s*bearer\s+(\S+)\s*$/i.exec(header);
    // Digests have equal lengths, so the comparison is constant-time whatever was sent.
    if (match?.[1] !== undefined && timingSafeEqual(digest(match[1]), this.expected)) return true;
    throw new MetricsUnauthorizedException();
  }
}
