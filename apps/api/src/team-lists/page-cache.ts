import { brotliDecompressSync } from "node:zlib";
import type { ChangesEnvelope, CursorEnvelope, ListContentCoding, ListEnvelope } from "@community/domain";
import { compress, MIN_COMPRESSED_BYTES } from "../common/content-coding";

/** What an entry costs besides its bodies (key, map slot, objects), counted against the budget. */
export const ENTRY_OVERHEAD_BYTES = 256;

/** Deep pages seen once, remembered per generation; two generations make the doorkeeper's window. */
export const DOORKEEPER_GENERATION = 16_384;

/** FNV-1a, cut to 30 bits: the doorkeeper keeps numbers, not keys (a collision only admits a page early). */
function fingerprint(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  // 30 bits: a small integer to V8, kept in the set without a heap number each.
  return hash & 0x3fffffff;
}

/**
 * The keys of deep pages asked for once recently: a deep page is admitted to the cache on its
 * second miss within the window (the last DOORKEEPER_GENERATION to 2 × DOORKEEPER_GENERATION
 * distinct deep pages missed), so that a walk through a large team's pages, each asked for once,
 * passes by the cache instead of evicting pages that others ask for again. About 1 MB at most.
 */
class Doorkeeper {
  private current = new Set<number>();
  private previous = new Set<number>();

  /** True when `key` was seen within the window; otherwise remembers it and returns false. */
  seenBefore(key: string): boolean {
    const print = fingerprint(key);
    if (this.current.has(print) || this.previous.has(print)) return true;
    if (this.current.size >= DOORKEEPER_GENERATION) {
      this.previous = this.current;
      this.current = new Set();
    }
    this.current.add(print);
    return false;
  }
}

/**
 * `bytes` in memory of their own. A small Buffer.from(string) is a slice of Node's shared 8 KB
 * pool and a zlib result a slice of its 16 KB output chunk: kept in the cache, such a slice would
 * keep the whole block alive, and a cache of small pages would hold several times its budget.
 */
function owned(bytes: Buffer): Buffer {
  if (bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.length) return bytes;
  const copy = Buffer.allocUnsafeSlow(bytes.length);
  bytes.copy(copy);
  return copy;
}

/** The body of a list answer, of one list's items: a page, a cursor page or a page of changes. */
export type ListBody<Item> = ListEnvelope<Item> | CursorEnvelope<Item> | ChangesEnvelope<Item>;

/**
 * A list page serialized once: its JSON, and its gzip and br forms, each made on first demand.
 * Bodies under MIN_COMPRESSED_BYTES are always sent as they are.
 *
 * The page cache keeps a compact copy (`compact()`): the br form and no JSON. A list page's JSON
 * is repetitive and brotli takes it to about a tenth, so the same PAGE_CACHE_BYTES holds several
 * times more pages: on the mix of bench/README.md ("Pages kept compressed") the hit rate went from
 * 18 % to 30 %, and the api's throughput from 1.33x to 1.44x the floor's. A client that takes
 * br gets the kept bytes. The first client that asks a kept page in gzip, or in identity, has that
 * form made (compressed, or decompressed from br) and kept beside br, counted against the budget:
 * no client pays a transcoding on every hit (decompressing the page of 100 on each hit held an
 * identity client at 1.06-1.70x the floor's throughput, against 3.7x for br), and a page no one
 * asks in identity costs a tenth of its JSON.
 */
export class PageBody {
  private gzip: Buffer | undefined;
  private br: Buffer | undefined;
  /** Told how many bytes a new compressed form added (set while the body is in a cache). */
  onGrow: ((bytes: number) => void) | undefined;

  /** The JSON; undefined in a compact body until a client asks for it in identity. */
  private bytes: Buffer | undefined;
  /** The length of the JSON, compact or not. */
  private readonly jsonLength: number;
  /** Set in a body a cache keeps: every form it holds owns its memory. */
  private readonly kept: boolean;

  private constructor(json: Buffer | undefined, jsonLength: number, kept: boolean) {
    this.bytes = json;
    this.jsonLength = jsonLength;
    this.kept = kept;
  }

  /** The body of `envelope`, typed by @community/domain's envelopes: a wrong field is a compile error. */
  static of<Item>(envelope: ListBody<Item>): PageBody {
    const json = Buffer.from(JSON.stringify(envelope));
    return new PageBody(json, json.length, false);
  }

  /**
   * The JSON form (decompressed again on each call in a compact body, into one buffer of its known
   * length: four 16 KB chunks of zlib's and their concatenation took 39 µs against 24 for the mix's
   * page of 100, 49 KB).
   */
  get json(): Buffer {
    return this.bytes ?? brotliDecompressSync(this.br as Buffer, { chunkSize: this.jsonLength + 64 });
  }

  /** Every byte held: the JSON (none in a compact body) and the compressed forms made so far. */
  get size(): number {
    return (this.bytes?.length ?? 0) + (this.gzip?.length ?? 0) + (this.br?.length ?? 0);
  }

  /** The bytes to send to a client that negotiated `requested`, and the coding they are in. */
  encoded(requested: ListContentCoding): { bytes: Buffer; coding: ListContentCoding } {
    const coding = this.sentIn(requested);
    if (coding === "identity") return { bytes: this.identity(), coding };
    let bytes = coding === "gzip" ? this.gzip : this.br;
    if (bytes === undefined) {
      bytes = compress(this.json, coding);
      if (this.kept) bytes = owned(bytes);
      if (coding === "gzip") this.gzip = bytes;
      else this.br = bytes;
      this.onGrow?.(bytes.length);
    }
    return { bytes, coding };
  }

  /** The JSON to send; a body in a cache keeps it from the first time it is asked for, as it keeps a gzip form. */
  private identity(): Buffer {
    if (this.bytes !== undefined) return this.bytes;
    if (!this.kept) return this.json;
    const json = owned(this.json);
    this.bytes = json;
    this.onGrow?.(json.length);
    return json;
  }

  /**
   * What `encoded(requested)` sends, measured: its coding and length. The JSON's length is known, so a
   * compact body answers a HEAD in identity without decompressing its page.
   */
  measured(requested: ListContentCoding): { length: number; coding: ListContentCoding } {
    const coding = this.sentIn(requested);
    return { length: coding === "identity" ? this.jsonLength : this.encoded(coding).bytes.length, coding };
  }

  /** The coding a client that negotiated `coding` is sent: identity for a body under MIN_COMPRESSED_BYTES. */
  private sentIn(coding: ListContentCoding): ListContentCoding {
    return this.jsonLength < MIN_COMPRESSED_BYTES ? "identity" : coding;
  }

  /**
   * The copy a cache keeps: the br form (made now, and left on this body too for the response in
   * flight) and any gzip form already made, without the JSON; a body under MIN_COMPRESSED_BYTES
   * keeps its JSON. Each form in memory of its own.
   */
  compact(): PageBody {
    const json = this.bytes;
    const small = this.jsonLength < MIN_COMPRESSED_BYTES;
    if (json !== undefined && !small) this.br ??= compress(json, "br");
    const copy = new PageBody(json !== undefined && small ? owned(json) : undefined, this.jsonLength, true);
    copy.br = this.br && owned(this.br);
    copy.gzip = this.gzip && owned(this.gzip);
    return copy;
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
  /** Deep pages read and not kept: asked for the first time within the doorkeeper's window. */
  deferred: number;
  /** Bytes held now (bodies and per-entry overhead). */
  bytes: number;
  entries: number;
}

/**
 * Recently served list pages, ready to send, bounded in bytes (PAGE_CACHE_BYTES; 0 keeps
 * nothing). A page is a pure function of its team, list, list state, page and page size: every
 * write that can change a page of a list moves its version and stamp (team_list_stats). So an
 * entry is never stale, only unused: the caller looks pages up by the state it has just read from
 * the database.
 *
 * Made for many teams of very different sizes, in two segments, each least recently used first out:
 * - first pages (page 1), what most clients ask for, are kept from their first read;
 * - deeper pages are kept from their second read within the doorkeeper's window, and only in the
 *   room first pages leave: over budget, the oldest deep page goes first, and a first page only
 *   when no deep page is left. So a large team's deep pages never push out anyone's first page.
 */
export class PageCache {
  private readonly first = new Map<string, CachedListPage>();
  private readonly deep = new Map<string, CachedListPage>();
  private readonly doorkeeper = new Doorkeeper();
  private readonly counts = { hits: 0, misses: 0, evictions: 0, deferred: 0, bytes: 0 };

  constructor(readonly maxBytes: number) {}

  /**
   * `version` is the list's state, `<version>.<stamp>` (ListState.version): a restore to an earlier
   * point or a lossy failover hands a version out again but with another stamp, so an entry of the
   * lost history is never found again. The team and list are part of the key too, so that no entry
   * can answer another team's or list's request whatever the sequence does. `variant` names what
   * else the page is a function of (filters, a cursor's position; "" for a plain page),
   * percent-encoded after a letter: so only the team id may hold a colon, and it comes first, and
   * the field before the page is a state (digits and a dot) in a plain page's key and a variant
   * otherwise: no two keys coincide. A cursor page that is not a walk's first has page 0.
   */
  static key(teamId: string, list: string, version: string, page: number, perPage: number, variant = ""): string {
    return variant === ""
      ? `${teamId}:${list}:${version}:${page}:${perPage}`
      : `${teamId}:${list}:${version}:v${encodeURIComponent(variant)}:${page}:${perPage}`;
  }

  /** Whether the key (made by PageCache.key) is of a first page: its page number is "1". */
  static isFirstPage(key: string): boolean {
    const end = key.lastIndexOf(":");
    const start = key.lastIndexOf(":", end - 1);
    return end - start === 2 && key.charCodeAt(start + 1) === 0x31;
  }

  get(key: string): CachedListPage | undefined {
    if (this.maxBytes === 0) return undefined;
    const segment = PageCache.isFirstPage(key) ? this.first : this.deep;
    const entry = segment.get(key);
    if (entry === undefined) {
      this.counts.misses++;
      return undefined;
    }
    this.counts.hits++;
    // Map order is recency order.
    segment.delete(key);
    segment.set(key, entry);
    return entry;
  }

  /** Keeps a compact copy of the page's body (PageBody.compact): `page` itself is left as it is. */
  set(key: string, page: CachedListPage): void {
    if (this.maxBytes === 0) return;
    const isFirst = PageCache.isFirstPage(key);
    if (!isFirst && !this.deep.has(key) && !this.doorkeeper.seenBefore(key)) {
      this.counts.deferred++;
      return;
    }
    const kept: CachedListPage = { ...page, body: page.body.compact() };
    const cost = kept.body.size + ENTRY_OVERHEAD_BYTES;
    if (cost > this.maxBytes) return;
    this.remove(key);
    (isFirst ? this.first : this.deep).set(key, kept);
    this.counts.bytes += cost;
    kept.body.onGrow = (bytes) => {
      this.counts.bytes += bytes;
      this.evict();
    };
    this.evict();
  }

  stats(): PageCacheStats {
    return { ...this.counts, entries: this.first.size + this.deep.size };
  }

  private evict(): void {
    while (this.counts.bytes > this.maxBytes) {
      const oldest = (this.deep.size > 0 ? this.deep : this.first).keys().next();
      if (oldest.done === true) return;
      this.remove(oldest.value);
      this.counts.evictions++;
    }
  }

  private remove(key: string): void {
    const segment = PageCache.isFirstPage(key) ? this.first : this.deep;
    const entry = segment.get(key);
    if (entry === undefined) return;
    segment.delete(key);
    entry.body.onGrow = undefined;
    this.counts.bytes -= entry.body.size + ENTRY_OVERHEAD_BYTES;
  }
}
