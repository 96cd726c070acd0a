import { type ExecutionContext, Inject, Injectable } from "@nestjs/common";
import { Reflector } from "@nestjs/core";
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  type ThrottlerModuleOptions,
  type ThrottlerRequest,
  type ThrottlerStorage,
} from "@nestjs/throttler";
import type { Request, Response } from "express";
import { bearerCredential } from "../common/bearer-credential";
import { APP_CONFIG, type AppConfig } from "../config/config";
import { RedisConnection } from "../redis/redis.provider";
import { budgetAddress, FailedAuthBudget } from "./failed-auth-budget";
import { KnownValidTokens } from "./known-valid-tokens";
import { RateLimitedException } from "./rate-limit.problems";
import { SpentBudgetRefusal } from "./spent-budget-refusal";

/** `user`: set by the bearer guard (passport's result), which runs after this one, once the token is valid. */
type MemberRequest = Request & { user?: unknown };

type Target = Parameters<Reflector["getAllAndOverride"]>[1][number];

/**
 * The throttler guard asks the reflector for six decorators (skip, limit, ttl, …) of the handler
 * and its class on every request. Decorators do not change once the app is built, so each answer
 * is looked up once per (decorator, handler, class) and kept.
 */
class SettledReflector extends Reflector {
  private readonly answers = new WeakMap<Target, WeakMap<Target, Map<unknown, unknown>>>();

  constructor(private readonly reflector: Reflector) {
    super();
  }

  override getAllAndOverride<T = unknown>(key: unknown, targets: Target[]): T {
    const [handler, classRef] = targets;
    if (targets.length !== 2 || handler === undefined || classRef === undefined) {
      return this.reflector.getAllAndOverride(key as string, targets) as T;
    }
    let byClass = this.answers.get(handler);
    if (byClass === undefined) {
      byClass = new WeakMap();
      this.answers.set(handler, byClass);
    }
    let byKey = byClass.get(classRef);
    if (byKey === undefined) {
      byKey = new Map();
      byClass.set(classRef, byKey);
    }
    if (!byKey.has(key)) byKey.set(key, this.reflector.getAllAndOverride(key as string, targets));
    return byKey.get(key) as T;
  }
}

/**
 * @nestjs/throttler's guard, global, so it runs before authentication: a client over its budget
 * is refused before its token is looked up in the database. The key is the SHA-256 of the bearer
 * token (never the token itself) when one is sent, else the client address (which honours
 * TRUST_PROXY). Headers follow the IETF RateLimit draft instead of X-RateLimit-*. A request
 * with a bearer token also spends its address's failed-authentication budget when it is answered
 * 401 (FailedAuthBudget). Once that is spent, a token that this replica has not authenticated
 * recently (KnownValidTokens) is refused with 429 before it is looked up; one it has goes on to
 * the token check as usual, so guessing from an address does not lock out the users behind it.
 * The request pass refuses those first (SpentBudgetRefusal); the check here catches a request that
 * passed it just before the budget was spent.
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(RedisConnection) private readonly redis: RedisConnection | null,
    private readonly failedAuth: FailedAuthBudget,
    private readonly knownTokens: KnownValidTokens,
    private readonly spentBudget: SpentBudgetRefusal,
  ) {
    super(options, storage, new SettledReflector(reflector));
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<MemberRequest>();
    // Read and hashed here, first, for the request's whole way (the bearer strategy reuses it).
    const digest = bearerCredential(request)?.digest;
    if (digest !== undefined && this.failedAuth.enabled) {
      // A failure of this address still being counted (its 401 already sent) is waited for, so
      // that this request sees the budget as the account has it: one budget across replicas, not
      // one per reply from Redis that has not come back yet.
      const counting = this.failedAuth.settled(budgetAddress(request.ip));
      if (counting !== undefined) await counting;
      this.spendFailures(request, http.getResponse<Response>(), digest);
    }
    return super.canActivate(context);
  }

  /**
   * Refuses a token the replica does not know to be valid from an address whose budget is spent
   * (the guessing, not the users behind the address), and settles the account once answered.
   */
  private spendFailures(request: MemberRequest, response: Response, digest: string): void {
    const refusal = this.spentBudget.check(request);
    if (refusal !== undefined) throw refusal;
    const address = budgetAddress(request.ip);
    // Settled once answered: only the guard behind this one knows whether the token was valid. It
    // sets `user` on the request when it was (logging/request-log.ts reads it there too).
    response.once("finish", () => {
      if (response.statusCode === 401) {
        this.knownTokens.refused(digest);
        void this.failedAuth.fail(address).catch(() => undefined);
      } else if (request.user !== undefined) {
        this.knownTokens.validated(digest);
      }
    });
  }

  override async shouldSkip(): Promise<boolean> {
    return this.config.rateLimitMax === 0;
  }

  protected override async getTracker(request: MemberRequest): Promise<string> {
    const digest = bearerCredential(request)?.digest;
    return digest === undefined ? `ip:${request.ip ?? "unknown"}` : `token:${digest}`;
  }

  /** One budget per caller across every limited route (the library's default is per handler). */
  protected override generateKey(_context: ExecutionContext, tracker: string, name: string): string {
    return `${name}:${tracker}`;
  }

  protected override async handleRequest(props: ThrottlerRequest): Promise<boolean> {
    const { context, limit, ttl, blockDuration, throttler } = props;
    const http = context.switchToHttp();
    const request = http.getRequest<Request>();
    const response = http.getResponse<Response>();
    const name = throttler.name ?? "default";
    const key = this.generateKey(context, await this.getTracker(request), name);
    const windowSeconds = Math.ceil(ttl / 1000);
    let record: Awaited<ReturnType<ThrottlerStorage["increment"]>>;
    try {
      record = await this.storageService.increment(key, ttl, limit, blockDuration, name);
    } catch (error) {
      // Shared storage down or hung: serve rather than refuse everyone (availability over strict
      // limits). The connection logs the change of state once and counts these requests.
      if (this.redis === null) throw error;
      this.redis.failed(error as Error);
      this.redis.unlimitedRequests += 1;
      return true;
    }
    this.redis?.answered();
    response.setHeader("RateLimit-Policy", `${name};q=${limit};w=${windowSeconds}`);
    if (record.isBlocked) {
      const retryAfter = Math.max(1, record.timeToBlockExpire);
      response.setHeader("RateLimit", `${name};r=0;t=${retryAfter}`);
      throw new RateLimitedException(retryAfter, limit, windowSeconds);
    }
    response.setHeader("RateLimit", `${name};r=${Math.max(0, limit - record.totalHits)};t=${record.timeToExpire}`);
    return true;
  }
}
