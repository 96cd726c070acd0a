/**
 * Page-boundary keys of a team's list: the sort key and id of every `stride`-th item, read at one
 * version of the list. A deep page then starts with an index seek to the nearest boundary at or
 * before its offset and walks fewer than `stride` entries, instead of walking `offset` entries.
 */
export interface PageBoundaries {
  version: string;
  stride: number;
  /** Sort keys (as PostgreSQL text) of items 0, stride, 2*stride, ...; `ids` are their ids. */
  keys: string[];
  ids: string[];
}

/** The boundary to seek to for `offset`, and how many items to skip after it. */
export interface Seek {
  key: string;
  id: string;
  version: string;
  skip: number;
}

export interface PageBoundaryCacheOptions {
  /** Most boundaries kept over all teams (memory bound: about 100 bytes each). */
  maxBoundaries: number;
}

/**
 * A bounded, least-recently-used cache of page boundaries per team, refreshed in the background
 * (one refresh per team at a time). Entries are tied to the list's version: the query that uses a
 * boundary checks the version in the same statement, so a stale entry can cost a retry but never
 * a wrong page.
 */
export class PageBoundaryCache {
  private readonly entries = new Map<string, PageBoundaries>();
  private readonly refreshing = new Map<string, Promise<void>>();
  private size = 0;

  constructor(
    private readonly read: (teamId: string) => Promise<PageBoundaries | null>,
    private readonly options: PageBoundaryCacheOptions,
  ) {}

  /** A seek for `offset` from the boundaries held for the team, if any cover it. */
  seekFor(teamId: string, offset: number): Seek | undefined {
    const entry = this.entries.get(teamId);
    if (entry === undefined) return undefined;
    // Map order is recency order.
    this.entries.delete(teamId);
    this.entries.set(teamId, entry);
    const index = Math.floor(offset / entry.stride);
    const key = entry.keys[index];
    const id = entry.ids[index];
    if (key === undefined || id === undefined) return undefined;
    return { key, id, version: entry.version, skip: offset - index * entry.stride };
  }

  /** Whether any boundaries are held for the team (of whatever version). */
  has(teamId: string): boolean {
    return this.entries.has(teamId);
  }

  /** Whether the held boundaries are those of `version`. */
  isCurrent(teamId: string, version: string): boolean {
    return this.entries.get(teamId)?.version === version;
  }

  /** Starts reading the team's boundaries unless a read is under way; never rejects. */
  refresh(teamId: string): Promise<void> {
    const running = this.refreshing.get(teamId);
    if (running !== undefined) return running;
    const done = this.read(teamId)
      .then((entry) => {
        this.remove(teamId);
        if (entry !== null && entry.keys.length <= this.options.maxBoundaries) this.add(teamId, entry);
      })
      // A failed refresh leaves the team on plain offsets until the next attempt.
      .catch(() => undefined)
      .finally(() => this.refreshing.delete(teamId));
    this.refreshing.set(teamId, done);
    return done;
  }

  private add(teamId: string, entry: PageBoundaries): void {
    this.entries.set(teamId, entry);
    this.size += entry.keys.length;
    for (const [oldest, old] of this.entries) {
      if (this.size <= this.options.maxBoundaries) break;
      this.entries.delete(oldest);
      this.size -= old.keys.length;
    }
  }

  private remove(teamId: string): void {
    const entry = this.entries.get(teamId);
    if (entry === undefined) return;
    this.entries.delete(teamId);
    this.size -= entry.keys.length;
  }
}
