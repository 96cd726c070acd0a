import { isIPv6 } from "node:net";
import { Inject, Injectable } from "@nestjs/common";
import { InjectThrottlerStorage, type ThrottlerStorage } from "@nestjs/throttler";
import { APP_CONFIG, type AppConfig } from "../config/config";
import { RedisConnection } from "../redis/redis.provider";

/** Addresses known to be refused, at most: beyond it the oldest are forgotten (and counted again). */
const MAX_REFUSED_ADDRESSES = 100_000;

/**
 * The client address a budget belongs to. An IPv6 client usually holds a whole /64 and can pick
 * a new address in it for every request, so IPv6 addresses count by their /64.
 */
export function budgetAddress(ip: string | undefined): string {
  if (ip === undefined) return "unknown";
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped !== null) return mapped[1] as string;
  if (!isIPv6(ip)) return ip;
  const [head = "", tail = ""] = ip.toLowerCase().split("::");
  const left = head === "" ? [] : head.split(":");
  const right = tail === "" ? [] : tail.split(":");
  const groups = ip.includes("::") ? [...left, ...Array(8 - left.length - right.length).fill("0"), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}

/**
 * Failed bearer authentications per client address (AUTH_FAILURE_LIMIT per
 * AUTH_FAILURE_WINDOW_SECONDS), counted in the rate limiter's storage: Redis when REDIS_URL is
 * set, so every replica spends one budget, else process memory. Each token sent costs a lookup,
 * and a new token has a fresh budget of its own with the per-token limiter, so made-up tokens are
 * limited here, by where they come from. Once an address has spent its budget, this replica
 * refuses it from memory, with no lookup and no round trip to Redis, until the window ends: so
 * each replica looks up at most one token more than the budget (plus those already in flight).
 */
@Injectable()
export class FailedAuthBudget {
  /** Address -> when its refusal ends (ms since the epoch), in the order they were refused. */
  private readonly refused = new Map<string, number>();
  /** Address -> its failures sent to the account and not yet answered (the last one; each waits for the one before). */
  private readonly pending = new Map<string, Promise<void>>();
  private readonly windowMs: number;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectThrottlerStorage() private readonly storage: ThrottlerStorage,
    /** Null without REDIS_URL: the in-memory storage, which does not fail. */
    @Inject(RedisConnection) private readonly redis: RedisConnection | null,
  ) {
    this.windowMs = config.authFailureWindowSeconds * 1000;
  }

  get enabled(): boolean {
    return this.config.authFailureLimit > 0;
  }

  get limit(): number {
    return this.config.authFailureLimit;
  }

  get windowSeconds(): number {
    return this.config.authFailureWindowSeconds;
  }

  /** Whether any address is refused here now (or was, until its next look-up): most of the time, none. */
  get refusing(): boolean {
    return this.refused.size > 0;
  }

  /** Seconds until `address` may authenticate again; 0 while it has budget left. */
  refusedFor(address: string, now = Date.now()): number {
    const until = this.refused.get(address);
    if (until === undefined) return 0;
    if (until <= now) {
      this.refused.delete(address);
      return 0;
    }
    return Math.ceil((until - now) / 1000);
  }

  /**
   * Spends one failure of `address`'s budget; once it is spent, the address is refused here. The
   * failure is counted after its 401 is sent, so this replica's next request from the address may
   * come before the account answers: `settled` lets it wait for that answer first.
   */
  fail(address: string): Promise<void> {
    const before = this.pending.get(address);
    const spent = before === undefined ? this.spend(address) : before.then(() => this.spend(address));
    // Never rejects: a failed spend is told to the caller of fail(); whoever waits in settled() goes on.
    const tracked: Promise<void> = spent
      .then(
        () => undefined,
        () => undefined,
      )
      .then(() => {
        if (this.pending.get(address) === tracked) this.pending.delete(address);
      });
    this.pending.set(address, tracked);
    return spent;
  }

  /**
   * Undefined while no failure of `address` is still being counted (almost always); else a
   * promise of the account's answer to the last one, after which refusedFor() is up to date.
   */
  settled(address: string): Promise<void> | undefined {
    return this.pending.size === 0 ? undefined : this.pending.get(address);
  }

  private async spend(address: string): Promise<void> {
    let record: Awaited<ReturnType<ThrottlerStorage["increment"]>>;
    try {
      record = await this.storage.increment(
        `auth-failures:${address}`,
        this.windowMs,
        this.limit,
        this.windowMs,
        "auth-failures",
      );
    } catch (error) {
      // As the api's limiter: with Redis down or hung, serve rather than refuse everyone.
      if (this.redis === null) throw error;
      this.redis.failed(error as Error);
      return;
    }
    this.redis?.answered();
    if (!record.isBlocked) return;
    this.refused.delete(address);
    this.refused.set(address, Date.now() + Math.max(1, record.timeToBlockExpire) * 1000);
    if (this.refused.size > MAX_REFUSED_ADDRESSES) {
      const oldest = this.refused.keys().next();
      if (oldest.done !== true) this.refused.delete(oldest.value);
    }
  }
}
