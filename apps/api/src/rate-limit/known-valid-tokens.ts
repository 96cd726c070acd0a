import { LRUCache } from "lru-cache";

/** Token digests remembered at most: beyond it the least recently validated are forgotten. */
const MAX_ENTRIES = 10_000;

/**
 * Digests (SHA-256) of bearer tokens that this replica authenticated recently, for
 * AUTH_KNOWN_TOKEN_TTL_SECONDS after their last success (0 remembers nothing). An address that has
 * spent its failed-authentication budget is refused for unknown tokens only: a token in here is
 * not a guess, so it goes on to the token check. Only that refusal is skipped, never the check
 * itself: a revoked or expired token is still refused on its very next request (and forgotten
 * then). Bounded, so that it costs at most MAX_ENTRIES digests of memory.
 */
export class KnownValidTokens {
  private readonly digests: LRUCache<string, true> | undefined;

  constructor(readonly ttlSeconds: number) {
    this.digests =
      ttlSeconds === 0 ? undefined : new LRUCache({ max: MAX_ENTRIES, ttl: ttlSeconds * 1000, ttlResolution: 0 });
  }

  has(digest: string): boolean {
    return this.digests?.has(digest) ?? false;
  }

  /** The token was authenticated: remembered for another ttl. */
  validated(digest: string): void {
    this.digests?.set(digest, true);
  }

  /** The token was refused (revoked, expired, unknown): no longer known. */
  refused(digest: string): void {
    this.digests?.delete(digest);
  }

  get size(): number {
    return this.digests?.size ?? 0;
  }
}
