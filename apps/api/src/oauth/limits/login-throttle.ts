import { hashToken } from "@community/db";
import { Inject, Injectable } from "@nestjs/common";
import { APP_CONFIG, type AppConfig, type LoginLimitConfig } from "../../config/config";
import { type Counter, LimitCounter } from "./limit-counter";

/** How much longer each tier of the account lockout is than the one before. */
const TIER_GROWTH = 4;

/**
 * The tiers of the progressive lockout of one account at one address: the first allows `attempts`
 * per window; each next one is 4 times as long and allows `attempts` more, up to the longest
 * lockout. Attempts keep counting while locked, so persisting reaches the longer tiers.
 */
export function lockoutTiers(limit: LoginLimitConfig): { windowMs: number; limit: number }[] {
  if (limit.attempts === 0) return [];
  const tiers = [{ windowMs: limit.windowSeconds * 1000, limit: limit.attempts }];
  let seconds = limit.windowSeconds;
  while (seconds < limit.maxLockoutSeconds) {
    seconds = Math.min(seconds * TIER_GROWTH, limit.maxLockoutSeconds);
    tiers.push({ windowMs: seconds * 1000, limit: limit.attempts * (tiers.length + 1) });
  }
  return tiers;
}

/**
 * Limits password guessing on the sign-in page. Every attempt counts (before the password is
 * checked) per account and client address, with a lockout that grows as attempts go on, and per
 * address whatever the account. Keyed by account AND address, so that an attacker elsewhere cannot
 * lock the real user out; the price is that guesses spread over many addresses are limited per
 * address only (docs/auth.md).
 */
@Injectable()
export class LoginThrottle {
  private readonly limit: LoginLimitConfig;
  private readonly tiers: { windowMs: number; limit: number }[];

  constructor(
    private readonly counter: LimitCounter,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.limit = config.oauth.loginLimit;
    this.tiers = lockoutTiers(this.limit);
  }

  /** Counts a sign-in attempt; returns the seconds to wait when it is refused, else 0. */
  attempt(username: string, address: string): Promise<number> {
    const counters: Counter[] = [];
    if (this.limit.addressMax > 0) {
      const windowMs = this.limit.windowSeconds * 1000;
      counters.push({ key: `login:address:${address}`, windowMs, limit: this.limit.addressMax, blockMs: windowMs });
    }
    // The account as a hash: user ids stay out of the limiter's storage.
    const account = `login:account:${hashToken(username)}:${address}`;
    this.tiers.forEach(({ windowMs, limit }, tier) => {
      counters.push({ key: `${account}:${tier}`, windowMs, limit, blockMs: windowMs });
    });
    return counters.length === 0 ? Promise.resolve(0) : this.counter.hit(counters);
  }
}
