import type { ListContentCoding } from "@community/domain";
import { compress, MIN_COMPRESSED_BYTES } from "./content-coding";

/** What an entry costs besides its bodies (key, map slot, objects), counted against the budget. */
const ENTRY_OVERHEAD_BYTES = 256;

/**
 * A list page serialized once: its JSON, and its gzip and br forms, each made on first demand.
 * Bodies under MIN_COMPRESSED_BYTES are always sent as they are.
 */
export class PageBody {
  private gzip: Buffer | undefined;
  private br: Buffer | undefined;
  /** Told how many bytes a new compressed form added (set while the body is in a cache). */
  onGrow: ((bytes: number) => void) | undefined;

  constructor(readonly json: Buffer) {}

  static of(value: unknown): PageBody {
    return new PageBody(Buffer.from(JSON.stringify(value)));
  }

  /** Every byte held: the JSON and the compressed forms made so far. */
  get size(): number {
    return this.json.length + (this.gzip?.length ?? 0) + (this.br?.length ?? 0);
  }

  /** The bytes to send to a client that negotiated `coding`, and the coding they are in. */
  encoded(coding: ListContentCoding): { bytes: Buffer; coding: ListContentCoding } {
    if (coding === "identity" || this.json.length < MIN_COMPRESSED_BYTES)
      return { bytes: this.json, coding: "identity" };
    let bytes = coding === "gzip" ? this.gzip : this.br;
    if (bytes === undefined) {
      bytes = compress(this.json, coding);
      if (coding === "gzip") this.gzip = bytes;
      else this.br = bytes;
      this.onGrow?.(bytes.length);
    }
    return { bytes, coding };
  }
}

/** A page as the cache keeps it: the body and what its headers need (the total, a cursor page's next cursor). */
export interface CachedListPage {
  body: PageBody;
  totalItems: number;
  nextCursor?: string | null;
}

export interface PageCacheStats {
  hits: number;
  misses: number;
  evictions: number;
  /** Bytes held now (bodies and per-entry overhead). */
  bytes: number;
  entries: number;
}

/**
 * Recently served list pages, ready to send, least recently used first out, bounded in bytes
 * (PAGE_CACHE_BYTES; 0 keeps nothing). A page is a pure function of its team, list, list version,
 * page and page size: every write that can change a page of a list moves its version
 * (team_list_stats, from a sequence). So an entry is never stale, only unused: the
 * caller looks pages up by the version it has just read from the database.
 */
export class PageCache {
  private readonly entries = new Map<string, CachedListPage>();
  private readonly counts = { hits: 0, misses: 0, evictions: 0, bytes: 0 };

  constructor(readonly maxBytes: number) {}

  /**
   * A version is unique only while its sequence never repeats (a restore to an earlier point, a
   * copied database or a reset sequence hands versions out again), so the team and list are part
   * of the key too: no entry can answer another team's or list's request. `variant` names what else
   * the page is a function of (filters, a cursor's position; "" for a plain page), percent-encoded
   * after a letter: so only the team id may hold a colon, and it comes first, and the field before
   * the page is a version (digits) in a plain page's key and a variant otherwise: no two keys
   * coincide. A cursor page that is not a walk's first has page 0.
   */
  static key(teamId: string, list: string, version: string, page: number, perPage: number, variant = ""): string {
    return variant === ""
      ? `${teamId}:${list}:${version}:${page}:${perPage}`
      : `${teamId}:${list}:${version}:v${encodeURIComponent(variant)}:${page}:${perPage}`;
  }

  get(key: string): CachedListPage | undefined {
    if (this.maxBytes === 0) return undefined;
    const entry = this.entries.get(key);
    if (entry === undefined) {
      this.counts.misses++;
      return undefined;
    }
    this.counts.hits++;
    // Map order is recency order.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry;
  }

  set(key: string, page: CachedListPage): void {
    const cost = page.body.size + ENTRY_OVERHEAD_BYTES;
    if (cost > this.maxBytes) return;
    this.remove(key);
    this.entries.set(key, page);
    this.counts.bytes += cost;
    page.body.onGrow = (bytes) => {
      this.counts.bytes += bytes;
      this.evict();
    };
    this.evict();
  }

  stats(): PageCacheStats {
    return { ...this.counts, entries: this.entries.size };
  }

  private evict(): void {
    while (this.counts.bytes > this.maxBytes) {
      const oldest = this.entries.keys().next();
      if (oldest.done === true) return;
      this.remove(oldest.value);
      this.counts.evictions++;
    }
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    entry.body.onGrow = undefined;
    this.counts.bytes -= entry.body.size + ENTRY_OVERHEAD_BYTES;
  }
}
