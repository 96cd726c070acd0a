import { type CallHandler, type ExecutionContext, Inject, Injectable, type NestInterceptor } from "@nestjs/common";
import { catchError, type Observable, TimeoutError, throwError, timeout } from "rxjs";
import { RequestTimeoutException } from "../common/problems";
import { APP_CONFIG, type AppConfig } from "../config/config";

/**
 * Answers 503 `unavailable` (with Retry-After) to a handler that runs longer than
 * REQUEST_TIMEOUT_MS, rather than letting the load balancer's own timeout cut the connection.
 * 503 and not 504: the api is not a gateway, and the contract's 503 already tells clients to
 * retry later.
 */
@Injectable()
export class RequestTimeoutInterceptor implements NestInterceptor {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const { requestTimeoutMs, retryAfterSeconds } = this.config;
    return next.handle().pipe(
      timeout(requestTimeoutMs),
      catchError((error: unknown) =>
        throwError(() =>
          error instanceof TimeoutError ? new RequestTimeoutException(requestTimeoutMs, retryAfterSeconds) : error,
        ),
      ),
    );
  }
}
