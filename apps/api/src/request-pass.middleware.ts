import { Injectable, type NestMiddleware } from "@nestjs/common";
import type { NextFunction, Request, Response } from "express";
import { PinoLogger } from "nestjs-pino";
import type { Logger } from "pino";
import { assignRequestId } from "./logging/request-id";
import { type LoggedRequest, writeRequestLine } from "./logging/request-log";
import { HttpMetrics } from "./metrics/http-metrics";
import { MetricsService } from "./metrics/metrics.service";
import { SpentBudgetRefusal } from "./rate-limit/spent-budget-refusal";
import { RequestHardening } from "./security/request-hardening";

/**
 * Everything every request goes through before it is routed, as one Express layer with one
 * close listener, instead of a middleware (and a listener) per concern:
 * - the request id (logging/request-id.ts), echoed in X-Request-Id;
 * - the request's logging context: application logs written while handling it carry its
 *   requestId (nestjs-pino's context, opened here rather than by its own middleware);
 * - the REQUEST_TIMEOUT_MS clock, helmet's headers, CORS, the Host header and the body limit
 *   (security/request-hardening.ts);
 * - once the response is closed: the HTTP metrics of a finished response (metrics/http-metrics.ts)
 *   and the request's one log line, written by the root logger (logging/request-log.ts).
 * A made-up token from an address whose failed-authentication budget is spent
 * (rate-limit/spent-budget-refusal.ts) is answered 429 at once, after the security checks only:
 * no logging context, clock, routing, guards, request line or HTTP metrics (a counter of its own
 * instead), so that a flood of them costs a fraction of a served request (bench/README.md, "Refusals").
 */
@Injectable()
export class RequestPassMiddleware implements NestMiddleware {
  private readonly root: Logger;
  private readonly metrics: HttpMetrics;

  constructor(
    private readonly logger: PinoLogger,
    metrics: MetricsService,
    private readonly hardening: RequestHardening,
    private readonly spentBudget: SpentBudgetRefusal,
  ) {
    // Outside a request, PinoLogger's logger is the root every line derives from.
    this.root = logger.logger as unknown as Logger;
    this.metrics = new HttpMetrics(metrics);
  }

  use(request: Request, response: Response, next: NextFunction): void {
    const refusal = this.spentBudget.check(request);
    if (refusal !== undefined) {
      assignRequestId(request, response);
      this.hardening.check(request, response, () => this.hardening.refuse(refusal, request, response));
      return;
    }
    const started = process.hrtime.bigint();
    const id = assignRequestId(request, response);
    (request as LoggedRequest).id = id;
    const stopClock = this.hardening.startClock(request, response);
    response.once("close", () => {
      stopClock();
      const elapsed = process.hrtime.bigint() - started;
      if (response.writableFinished) this.metrics.record(request, response, elapsed);
      writeRequestLine(this.root, request as LoggedRequest, response, Math.round(Number(elapsed) / 1e6));
    });
    this.logger.runInContext(() => this.hardening.check(request, response, next), { bindings: { requestId: id } });
  }
}
