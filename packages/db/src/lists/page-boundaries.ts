/**
 * Page-boundary keys of a team's list: the sort key, id and position (offset in the list) of
 * about every `stride`-th item, valid at one version of the list. A deep page then starts with an
 * index seek to the nearest boundary at or before its offset and walks fewer than `stride`
 * entries, instead of walking `offset` entries.
 *
 * Boundaries are first read at positions 0, stride, 2*stride, ... After a write, only those
 * inside the range of sort keys it changed are read again (from the last boundary before the
 * range, every stride-th item up to the first boundary after it); the boundaries after the range
 * keep their keys and shift by the range's net count. So positions stay exact while the gaps
 * between boundaries stay at most `stride`.
 */
export interface PageBoundaries {
  /**
   * The list's state, `<version>.<stamp>`: boundaries of a state the database no longer holds (a
   * restore, a failover) are never taken for the current ones, nor repaired from (read anew).
   */
  version: string;
  stride: number;
  /** Items in the list at `version`. */
  count: number;
  /** Sort keys (as PostgreSQL text) of the boundary items; `ids` are their ids. */
  keys: string[];
  ids: string[];
  /** The sort keys as epoch seconds (+-Infinity for infinite keys), to compare with changed ranges. */
  epochs: number[];
  /** Each boundary item's offset in the list, ascending. */
  positions: number[];
}

/** The boundary to seek to for `offset`, and how many items to skip after it. */
export interface Seek {
  key: string;
  id: string;
  version: string;
  skip: number;
}

/** The boundary with the largest position at or before `offset`, if any. */
export function seekIn(entry: PageBoundaries, offset: number): Seek | undefined {
  let low = 0;
  let high = entry.positions.length - 1;
  let found = -1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if ((entry.positions[middle] as number) <= offset) {
      found = middle;
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  // Past the last boundary by more than a stride: the seek would walk too far (plain offsets do).
  const position = entry.positions[found];
  const key = entry.keys[found];
  const id = entry.ids[found];
  if (position === undefined || key === undefined || id === undefined || offset - position >= entry.stride) {
    return undefined;
  }
  return { key, id, version: entry.version, skip: offset - position };
}

/**
 * The boundaries that a change to items with sort keys in [low, high] (epoch seconds) can move,
 * in list order (sort key descending): `from` is the last boundary strictly before the range
 * (-1: none, read from the list's start), whose position the change cannot move; `to` is the
 * first boundary strictly after it (the boundary count: none, read to the list's end). Boundaries
 * with a key equal to `low` or `high` count as inside: a changed item may share their key.
 */
export function changedSpan(entry: PageBoundaries, low: number, high: number): { from: number; to: number } {
  let from = -1;
  while (from + 1 < entry.epochs.length && (entry.epochs[from + 1] as number) > high) from++;
  let to = from + 1;
  while (to < entry.epochs.length && (entry.epochs[to] as number) >= low) to++;
  return { from, to };
}

/** Boundaries read again over a span: every stride-th item from the span's start, and its item count now. */
export interface SpanRead {
  keys: string[];
  ids: string[];
  epochs: number[];
  /** Items in the span now (from the boundary `from` inclusive to the boundary `to` exclusive). */
  count: number;
}

/**
 * The boundaries of `version`: those before the span as they were, the span's as read again, and
 * those after it shifted by the span's net change in count.
 */
export function spliceBoundaries(
  entry: PageBoundaries,
  span: { from: number; to: number },
  read: SpanRead,
  version: string,
): PageBoundaries {
  const start = span.from >= 0 ? (entry.positions[span.from] as number) : 0;
  const end = span.to < entry.positions.length ? (entry.positions[span.to] as number) : entry.count;
  const shift = read.count - (end - start);
  const keep = Math.max(span.from, 0);
  return {
    version,
    stride: entry.stride,
    count: entry.count + shift,
    keys: [...entry.keys.slice(0, keep), ...read.keys, ...entry.keys.slice(span.to)],
    ids: [...entry.ids.slice(0, keep), ...read.ids, ...entry.ids.slice(span.to)],
    epochs: [...entry.epochs.slice(0, keep), ...read.epochs, ...entry.epochs.slice(span.to)],
    positions: [
      ...entry.positions.slice(0, keep),
      ...read.keys.map((_, i) => start + i * entry.stride),
      ...entry.positions.slice(span.to).map((position) => position + shift),
    ],
  };
}

export interface PageBoundaryCacheOptions {
  /** Most boundaries kept over all teams (memory bound: about 100 bytes each). */
  maxBoundaries: number;
}

/**
 * A bounded, least-recently-used cache of page boundaries per team, refreshed in the background
 * (one refresh per team at a time; a refresh may repair the held entry rather than read anew). Entries are tied to the list's version: the query that uses a
 * boundary checks the version in the same statement, so a stale entry can cost a retry but never
 * a wrong page.
 */
export class PageBoundaryCache {
  private readonly entries = new Map<string, PageBoundaries>();
  private readonly refreshing = new Map<string, Promise<void>>();
  private size = 0;

  constructor(
    /** Reads the team's boundaries; `previous` (an older version's) may be repaired instead of read again. */
    private readonly read: (teamId: string, previous: PageBoundaries | undefined) => Promise<PageBoundaries | null>,
    private readonly options: PageBoundaryCacheOptions,
  ) {}

  /** A seek for `offset` from the boundaries held for the team, if any cover it. */
  seekFor(teamId: string, offset: number): Seek | undefined {
    const entry = this.entries.get(teamId);
    if (entry === undefined) return undefined;
    // Map order is recency order.
    this.entries.delete(teamId);
    this.entries.set(teamId, entry);
    return seekIn(entry, offset);
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
    const done = this.read(teamId, this.entries.get(teamId))
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
