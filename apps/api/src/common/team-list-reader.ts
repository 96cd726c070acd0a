import { type PageBoundaries, PageBoundaryCache } from "./page-boundaries";

/** What differs between the lists: the table, its sort key (as its list index has it), the columns. */
export interface TeamListSpec {
  list: "events" | "guides";
  /**
   * The list's order as one key, descending, ties by id ascending; an SQL expression over the
   * alias `t` that matches the leading sort column of the list's index, so seeks use that index.
   */
  sortKey: string;
  /** Select list over the item `t` and its account `a`. */
  columns: string;
}

/** Runs one SQL statement (parameters $1..$n) and returns its rows. */
export type QueryRunner = (text: string, values: unknown[]) => Promise<Array<Record<string, unknown>>>;

export interface TeamListQuery {
  teamId: string;
  offset: number;
  limit: number;
  /** The version the client already holds (from a valid If-None-Match), or "*" for any. */
  knownVersion?: string | undefined;
}

export interface TeamListResult<Row> {
  rows: Row[];
  total: number;
  /** The list's version in the snapshot that the rows and the total come from. */
  version: string;
  /** The client's version is current: no rows were read. */
  notModified: boolean;
}

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
export function pageSql(spec: TeamListSpec, seek: boolean): string {
  const key = spec.sortKey;
  const seekCondition = seek
    ? `AND ${key} <= $5::timestamptz AND (${key} < $5::timestamptz OR t.id >= $6)
       AND EXISTS (SELECT 1 FROM stats WHERE version::text = $7::text)`
    : "AND $3 < COALESCE((SELECT item_count FROM stats), 0)";
  return `WITH stats AS (
  SELECT item_count, version FROM team_list_stats WHERE team_id = $1 AND list = '${spec.list}'
), page AS (
  SELECT t.id, ${key} AS sort_key FROM ${spec.list} t
   WHERE t.team_id = $1 ${seekCondition}
     AND NOT EXISTS (SELECT 1 FROM stats WHERE $4::text = '*' OR version::text = $4::text)
   ORDER BY ${key} DESC, t.id
   LIMIT $2 OFFSET $3
)
SELECT COALESCE(s.item_count, 0)::float8 AS list_total, COALESCE(s.version, 0)::text AS list_version, ${spec.columns}
  FROM (SELECT 1) one
  LEFT JOIN stats s ON true
  LEFT JOIN (page p JOIN ${spec.list} t ON t.id = p.id JOIN accounts a ON a.id = t.account_id) ON true
 ORDER BY p.sort_key DESC, p.id`;
}

/** Every `$2`-th key of the team's list, with the version they belong to, from one snapshot. */
export function boundariesSql(spec: TeamListSpec): string {
  return `SELECT (SELECT version::text FROM team_list_stats WHERE team_id = $1 AND list = '${spec.list}') AS list_version,
       b.sort_key::text AS sort_key, b.id
  FROM (SELECT ${spec.sortKey} AS sort_key, t.id, row_number() OVER (ORDER BY ${spec.sortKey} DESC, t.id) AS n
          FROM ${spec.list} t WHERE t.team_id = $1) b
 WHERE (b.n - 1) % $2 = 0
 ORDER BY b.n`;
}

/**
 * Reads pages of one list for any team: the plain statement for shallow pages, a seek from a
 * cached page boundary for deep ones (re-read when the list's version moves), so the cost of a
 * page does not grow with its depth or the team's size. Writes that land faster than the
 * boundaries can be re-read make deep pages fall back to the plain offset walk (see
 * docs/database.md).
 */
export class TeamListReader<Row> {
  private readonly plain: string;
  private readonly seek: string;
  private readonly boundaries: string;
  private readonly cache: PageBoundaryCache;

  constructor(
    private readonly spec: TeamListSpec,
    private readonly query: QueryRunner,
    private readonly toRow: (row: Record<string, unknown>) => Row,
    options: { maxBoundaries?: number } = {},
  ) {
    this.plain = pageSql(spec, false);
    this.seek = pageSql(spec, true);
    this.boundaries = boundariesSql(spec);
    this.cache = new PageBoundaryCache((teamId) => this.readBoundaries(teamId), {
      maxBoundaries: options.maxBoundaries ?? 200_000,
    });
  }

  async read({ teamId, offset, limit, knownVersion }: TeamListQuery): Promise<TeamListResult<Row>> {
    const known = knownVersion ?? null;
    if (offset >= SEEK_MIN_OFFSET) {
      // The first deep page of a team waits for its boundaries (one read, shared by all waiting
      // requests) rather than walking `offset` index entries itself.
      if (!this.cache.has(teamId)) await this.cache.refresh(teamId);
      for (let attempt = 0; attempt < 2; attempt++) {
        const seek = this.cache.seekFor(teamId, offset);
        if (seek === undefined) break;
        const result = this.toResult(
          await this.query(this.seek, [teamId, limit, seek.skip, known, seek.key, seek.id, seek.version]),
          known,
        );
        if (result.version === seek.version || result.notModified) return result;
        // The list changed since its boundaries were read: read them again, once, then seek again.
        if (attempt === 0) await this.cache.refresh(teamId);
      }
    }
    const result = this.toResult(await this.query(this.plain, [teamId, limit, offset, known]), known);
    if (offset >= SEEK_MIN_OFFSET && offset < result.total && !this.cache.isCurrent(teamId, result.version)) {
      void this.cache.refresh(teamId);
    }
    return result;
  }

  /** Waits for the team's boundaries to be read (the next deep page then seeks). */
  prepare(teamId: string): Promise<void> {
    return this.cache.refresh(teamId);
  }

  private toResult(rows: Array<Record<string, unknown>>, known: string | null): TeamListResult<Row> {
    const first = rows[0];
    const version = String(first?.list_version ?? "0");
    return {
      rows: rows.filter((row) => row.id !== null).map(this.toRow),
      total: Number(first?.list_total ?? 0),
      version,
      notModified: known !== null && (known === "*" || known === version),
    };
  }

  private async readBoundaries(teamId: string): Promise<PageBoundaries | null> {
    const [stats] = await this.query(
      `SELECT item_count::float8 AS item_count FROM team_list_stats WHERE team_id = $1 AND list = '${this.spec.list}'`,
      [teamId],
    );
    const count = Number(stats?.item_count ?? 0);
    const stride = Math.max(MIN_STRIDE, Math.ceil(count / MAX_BOUNDARIES_PER_TEAM));
    const rows = await this.query(this.boundaries, [teamId, stride]);
    const version = rows[0]?.list_version;
    if (typeof version !== "string") return null;
    return { version, stride, keys: rows.map((r) => String(r.sort_key)), ids: rows.map((r) => String(r.id)) };
  }
}
