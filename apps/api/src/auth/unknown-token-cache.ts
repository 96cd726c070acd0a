/** Token digests remembered at most: beyond it the oldest are forgotten (and looked up again). */
const MAX_ENTRIES = 10_000;

/**
 * Digests of bearer tokens that matched no token at all, answered 401 without a lookup for
 * `ttlMs` (AUTH_UNKNOWN_TOKEN_CACHE_MS; 0 remembers nothing). Short on purpose: a token inserted
 * after it was refused here works at most `ttlMs` later (tokens the service issues itself are JWTs
 * and never pass through here; opaque tokens come from the fixture loader). Revoked and expired
 * tokens are not kept (a reload may extend an expiry), and a valid token is looked up on every
 * request, so revocation takes effect at once. Bounded, so that a flood of distinct made-up
 * tokens cannot grow it.
 */
export class UnknownTokenCache {
  /** Digest -> when it is looked up again (ms since the epoch), oldest first. */
  private readonly entries = new Map<string, number>();

  constructor(
    readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  has(digest: string): boolean {
    const until = this.entries.get(digest);
    if (until === undefined) return false;
    if (until > this.now()) return true;
    this.entries.delete(digest);
    return false;
  }

  add(digest: string): void {
    if (this.ttlMs === 0) return;
    this.entries.delete(digest);
    this.entries.set(digest, this.now() + this.ttlMs);
    if (this.entries.size > MAX_ENTRIES) {
      const oldest = this.entries.keys().next();
      if (oldest.done !== true) this.entries.delete(oldest.value);
    }
  }

  get size(): number {
    return this.entries.size;
  }
}
