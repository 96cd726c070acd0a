import { LRUCache } from "lru-cache";

/** Token digests remembered at most: beyond it the oldest are forgotten (and looked up again). */
const MAX_ENTRIES = 10_000;

/**
 * Digests of bearer tokens that matched no token at all, answered 401 without a lookup for
 * `ttlMs` (AUTH_UNKNOWN_TOKEN_CACHE_MS; 0 remembers nothing). Short on purpose: a token inserted
 * after it was refused here works at most `ttlMs` later (tokens the service issues itself are JWTs
 * and never pass through here; opaque tokens come from the fixture loader). Revoked and expired
 * tokens are not kept (a reload may extend an expiry), and a valid token is looked up on every
 * request, so revocation takes effect at once. Bounded (lru-cache), so that a flood of distinct
 * made-up tokens cannot grow it.
 */
export class UnknownTokenCache {
  private readonly digests: LRUCache<string, true> | undefined;

  constructor(
    readonly ttlMs: number,
    now: () => number = Date.now,
  ) {
    // ttlResolution 0: read the clock on each check rather than keep a timer that clears a cached time.
    this.digests =
      ttlMs === 0
        ? undefined
        : new LRUCache({ max: MAX_ENTRIES, ttl: ttlMs, ttlResolution: 0, updateAgeOnHas: false, perf: { now } });
  }

  has(digest: string): boolean {
    // get, not has: an expired digest is dropped as it is found.
    return this.digests?.get(digest) !== undefined;
  }

  add(digest: string): void {
    this.digests?.set(digest, true);
  }

  get size(): number {
    return this.digests?.size ?? 0;
  }
}
