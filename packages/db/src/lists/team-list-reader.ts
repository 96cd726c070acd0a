import { listStateSql } from "./changes";
import {
  changedSpan,
  type PageBoundaries,
  PageBoundaryCache,
  type SpanRead,
  spliceBoundaries,
} from "./page-boundaries";
import type { Queryable, TeamList, TeamListPages, TeamListQuery, TeamListResult } from "./team-list";

/** What the SQL of a list is built from. */
type ListSql = Pick<TeamList<{ id: string }, unknown>, "list" | "sortKey" | "columns">;

/** Offsets below this walk the index directly: a few hundred entries cost less than a seek's setup. */
export const SEEK_MIN_OFFSET = 1_000;
/** Boundaries are kept for every `stride`-th item: at least 100, at most about 10,000 per team. */
const MIN_STRIDE = 100;
const MAX_BOUNDARIES_PER_TEAM = 10_000;

/**
 * The SQL of a list page: ONE statement, so the total, the version and the rows come from one
 * snapshot with one round trip and no transaction. The total and version come from the
 * trigger-maintained team_list_stats row; the page's ids come from an index-only scan of the
 * list index (a deferred join: only the page's rows are fetched from the table); the page is
 * skipped when the client's version is current or the offset is past the end.
 *
 * With a seek ($5 key, $6 id of a page boundary read at version $7), the scan starts at that
 * boundary (an O(log n) descent) and $3 is the number of items to skip after it; if the list has
 * changed since the boundary was read, the statement returns no rows and the caller retries
 * without the seek.
 */
export function pageSql(spec: ListSql, seek: boolean): string {
  const key = spec.sortKey;
  const seekCondition = seek
    ? `AND ${key} <= $5::timestamptz AND (${key} < $5::timestamptz OR t.id >= $6)
       AND EXISTS (SELECT 1 FROM stats WHERE state = $7::text)`
    : "AND $3 < COALESCE((SELECT item_count FROM stats), 0)";
  return `WITH stats AS (
  SELECT item_count, ${listStateSql("s")} AS state FROM team_list_stats s WHERE team_id = $1 AND list = '${spec.list}'
), page AS (
  SELECT t.id, ${key} AS sort_key FROM ${spec.list} t
   WHERE t.team_id = $1 ${seekCondition}
     AND NOT EXISTS (SELECT 1 FROM stats WHERE $4::text = '*' OR state = $4::text)
   ORDER BY ${key} DESC, t.id
   LIMIT $2 OFFSET $3
)
SELECT COALESCE(s.item_count, 0)::float8 AS list_total, COALESCE(s.state, '0') AS list_version, ${spec.columns}
  FROM (SELECT 1) one
  LEFT JOIN stats s ON true
  LEFT JOIN (page p JOIN ${spec.list} t ON t.id = p.id JOIN accounts a ON a.id = t.account_id) ON true
 ORDER BY p.sort_key DESC, p.id`;
}

/** Every row of a page statement: the list's total and version (from team_list_stats). */
interface PageStats {
  list_total: number;
  list_version: string;
}

/** A page statement's row: the stats, and the item's columns, all null when the page is empty. */
type PageRow<Row> = PageStats & (Row | { [K in keyof Row]: null });

/** The row of boundariesSql (none before the team's first item). */
interface BoundaryRow {
  list_version: string;
  list_count: number;
  sort_key: string;
  sort_epoch: number;
  id: string;
}

/** Every `$2`-th key of the team's list, with the version and count they belong to, from one snapshot. */
export function boundariesSql(spec: ListSql): string {
  return `SELECT ${listStateSql("s")} AS list_version, s.item_count::float8 AS list_count,
       b.sort_key::text AS sort_key, extract(epoch FROM b.sort_key)::float8 AS sort_epoch, b.id
  FROM (SELECT version, stamp, item_count FROM team_list_stats WHERE team_id = $1 AND list = '${spec.list}') s,
       (SELECT ${spec.sortKey} AS sort_key, t.id, row_number() OVER (ORDER BY ${spec.sortKey} DESC, t.id) AS n
          FROM ${spec.list} t WHERE t.team_id = $1) b
 WHERE (b.n - 1) % $2 = 0
 ORDER BY b.n`;
}

/** The team's item count, which sets the boundaries' stride. */
function itemCountSql(spec: ListSql): string {
  return `SELECT item_count::float8 AS item_count FROM team_list_stats WHERE team_id = $1 AND list = '${spec.list}'`;
}

/** The row of itemCountSql. */
interface ItemCountRow {
  item_count: number;
}

/**
 * The list's state and count, whether the state ($2 version, $3 stamp) is in this database's history
 * (team_list_commits: a restore or a failover may have replaced it with another of the same
 * version), and the range of sort keys (epoch seconds) changed after it, from the
 * trigger-maintained team_list_changes (prisma/migrations/20261123200000_team_list_changes).
 */
export function changesSql(spec: ListSql): string {
  return `SELECT ${listStateSql("s")} AS list_version, s.item_count::float8 AS item_count, count(c.version)::int AS changes,
       extract(epoch FROM min(c.low_key))::float8 AS low, extract(epoch FROM max(c.high_key))::float8 AS high,
       EXISTS (SELECT 1 FROM team_list_commits k
                WHERE k.team_id = s.team_id AND k.list = s.list AND k.version = $2::bigint AND k.stamp = $3::bigint) AS known
  FROM team_list_stats s
  LEFT JOIN team_list_changes c ON c.team_id = s.team_id AND c.list = s.list AND c.version > $2::bigint
 WHERE s.team_id = $1 AND s.list = '${spec.list}'
 GROUP BY s.team_id, s.list, s.version, s.stamp, s.item_count`;
}

/** The row of changesSql. */
interface ChangesRow {
  list_version: string;
  known: boolean;
  item_count: number;
  changes: number;
  low: number | null;
  high: number | null;
}

/**
 * Every `$2`-th item of a span of the list, from the item ($3 key, $4 id) on (else from the
 * start) to before the item (the next two parameters: key, id) (else to the end), with the span's item count and
 * the version, from one snapshot. Bounds are written into the SQL only when present, so that
 * both are index range conditions (an `IS NULL OR` would scan the team's whole index).
 */
export function spanSql(spec: ListSql, from: boolean, to: boolean): string {
  const key = spec.sortKey;
  const fromCondition = from ? `AND ${key} <= $3::timestamptz AND (${key} < $3::timestamptz OR t.id >= $4)` : "";
  const [toKey, toId] = from ? ["$5", "$6"] : ["$3", "$4"];
  const toCondition = to
    ? `AND ${key} >= ${toKey}::timestamptz AND (${key} > ${toKey}::timestamptz OR t.id < ${toId})`
    : "";
  return `WITH span AS (
  SELECT ${key} AS sort_key, t.id, row_number() OVER (ORDER BY ${key} DESC, t.id) AS n, count(*) OVER () AS total
    FROM ${spec.list} t
   WHERE t.team_id = $1 ${fromCondition} ${toCondition}
)
SELECT (SELECT ${listStateSql("s")} FROM team_list_stats s WHERE team_id = $1 AND list = '${spec.list}') AS list_version,
       COALESCE(b.total, 0)::float8 AS total, b.sort_key::text AS sort_key,
       extract(epoch FROM b.sort_key)::float8 AS sort_epoch, b.id
  FROM (SELECT 1) one
  LEFT JOIN span b ON (b.n - 1) % $2 = 0
 ORDER BY b.n`;
}

/** The row of spanSql: one all-null row (but the version and total) for an empty span. */
interface SpanRow {
  list_version: string | null;
  total: number;
  sort_key: string | null;
  sort_epoch: number | null;
  id: string | null;
}

/**
 * Reads pages of one list for any team: the plain statement for shallow pages, a seek from a
 * cached page boundary for deep ones (re-read when the list's version moves), so the cost of a
 * page does not grow with its depth or the team's size. Writes that land faster than the
 * boundaries can be re-read make deep pages fall back to the plain offset walk (see
 * docs/database.md).
 */
export class TeamListReader<Row extends { id: string }, Item> implements TeamListPages<Item> {
  private readonly plain: string;
  private readonly seek: string;
  private readonly boundaries: string;
  private readonly itemCount: string;
  private readonly changes: string;
  /** spanSql by which bounds it has: [neither, to only, from only, both]. */
  private readonly spans: string[];
  private readonly cache: PageBoundaryCache;

  constructor(
    private readonly db: Queryable,
    private readonly spec: TeamList<Row, Item>,
    options: { maxBoundaries?: number } = {},
  ) {
    this.plain = pageSql(spec, false);
    this.seek = pageSql(spec, true);
    this.boundaries = boundariesSql(spec);
    this.itemCount = itemCountSql(spec);
    this.changes = changesSql(spec);
    this.spans = [
      spanSql(spec, false, false),
      spanSql(spec, false, true),
      spanSql(spec, true, false),
      spanSql(spec, true, true),
    ];
    this.cache = new PageBoundaryCache((teamId, previous) => this.refreshBoundaries(teamId, previous), {
      maxBoundaries: options.maxBoundaries ?? 200_000,
    });
  }

  async read({ teamId, offset, limit, knownVersion }: TeamListQuery): Promise<TeamListResult<Item>> {
    const known = knownVersion ?? null;
    if (offset >= SEEK_MIN_OFFSET) {
      // The first deep page of a team waits for its boundaries (one read, shared by all waiting
      // requests) rather than walking `offset` index entries itself.
      if (!this.cache.has(teamId)) await this.cache.refresh(teamId);
      for (let attempt = 0; attempt < 2; attempt++) {
        const seek = this.cache.seekFor(teamId, offset);
        if (seek === undefined) break;
        const values = [teamId, limit, seek.skip, known, seek.key, seek.id, seek.version];
        const result = this.toResult(await this.db.query<PageRow<Row>>(this.seek, values), known);
        if (result.version === seek.version || result.notModified) return result;
        // The list changed since its boundaries were read: read them again, once, then seek again.
        if (attempt === 0) await this.cache.refresh(teamId);
      }
    }
    const result = this.toResult(await this.db.query<PageRow<Row>>(this.plain, [teamId, limit, offset, known]), known);
    if (offset >= SEEK_MIN_OFFSET && offset < result.total && !this.cache.isCurrent(teamId, result.version)) {
      void this.cache.refresh(teamId);
    }
    return result;
  }

  private toResult({ rows }: { rows: PageRow<Row>[] }, known: string | null): TeamListResult<Item> {
    const first = rows[0];
    const version = first?.list_version ?? "0";
    const items: Item[] = [];
    for (const row of rows) if (hasItem(row)) items.push(this.spec.toItem(row));
    return {
      items,
      total: first?.list_total ?? 0,
      version,
      notModified: known !== null && (known === "*" || known === version),
    };
  }

  /** A held entry repaired where the list changed since, or (failing that) the boundaries read anew. */
  private async refreshBoundaries(
    teamId: string,
    previous: PageBoundaries | undefined,
  ): Promise<PageBoundaries | null> {
    if (previous !== undefined) {
      const repaired = await this.repairBoundaries(teamId, previous);
      if (repaired !== undefined) return repaired;
    }
    return this.readBoundaries(teamId);
  }

  private async readBoundaries(teamId: string): Promise<PageBoundaries | null> {
    const { rows: counts } = await this.db.query<ItemCountRow>(this.itemCount, [teamId]);
    const count = counts[0]?.item_count ?? 0;
    const stride = strideFor(count);
    const { rows } = await this.db.query<BoundaryRow>(this.boundaries, [teamId, stride]);
    const first = rows[0];
    if (first === undefined) return null;
    return {
      version: first.list_version,
      stride,
      count: first.list_count,
      keys: rows.map((r) => r.sort_key),
      ids: rows.map((r) => r.id),
      epochs: rows.map((r) => r.sort_epoch),
      positions: rows.map((_, i) => i * stride),
    };
  }

  /**
   * The boundaries of the list's current version from `previous`: unchanged when no item moved
   * since (an account rename moves the version only), else re-read over the changed span alone.
   * null when the team has no list any more; undefined when a full read is needed (the list grew
   * or shrank past what the stride suits, or it changed while the span was read).
   */
  private async repairBoundaries(teamId: string, previous: PageBoundaries): Promise<PageBoundaries | null | undefined> {
    const [version, stamp] = previous.version.split(".");
    const { rows } = await this.db.query<ChangesRow>(this.changes, [teamId, version, stamp ?? "0"]);
    const state = rows[0];
    if (state === undefined) return null;
    if (state.list_version === previous.version) return previous;
    // Boundaries of a state this database does not hold (a restore, a failover): read anew.
    if (!state.known) return undefined;
    if (state.changes === 0) return { ...previous, version: state.list_version };
    const stride = strideFor(state.item_count);
    if (stride > 2 * previous.stride || (stride < previous.stride / 2 && previous.stride > MIN_STRIDE))
      return undefined;
    const span = changedSpan(previous, state.low ?? Number.NEGATIVE_INFINITY, state.high ?? Number.POSITIVE_INFINITY);
    const from = span.from >= 0;
    const to = span.to < previous.keys.length;
    const values: unknown[] = [teamId, previous.stride];
    if (from) values.push(previous.keys[span.from], previous.ids[span.from]);
    if (to) values.push(previous.keys[span.to], previous.ids[span.to]);
    const spanRows = (await this.db.query<SpanRow>(this.spans[(from ? 2 : 0) + (to ? 1 : 0)] as string, values)).rows;
    if (spanRows[0]?.list_version !== state.list_version) return undefined;
    const read: SpanRead = { keys: [], ids: [], epochs: [], count: spanRows[0]?.total ?? 0 };
    for (const row of spanRows) {
      if (row.sort_key === null || row.id === null || row.sort_epoch === null) continue;
      read.keys.push(row.sort_key);
      read.ids.push(row.id);
      read.epochs.push(row.sort_epoch);
    }
    const repaired = spliceBoundaries(previous, span, read, state.list_version);
    // The positions are exact only if the count agrees with the trigger-maintained one.
    return repaired.count === state.item_count ? repaired : undefined;
  }
}

/** Boundaries every `stride`-th item: at least 100 apart, at most about 10,000 per team. */
function strideFor(count: number): number {
  return Math.max(MIN_STRIDE, Math.ceil(count / MAX_BOUNDARIES_PER_TEAM));
}

/** The row of a page statement carries an item (the statement's LEFT JOIN gives one all-null row for none). */
function hasItem<Row extends { id: string }>(row: PageRow<Row>): row is PageStats & Row {
  return row.id !== null;
}
