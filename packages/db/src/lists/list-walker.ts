import { listStateSql } from "./changes";
import type { AnyTeamList, KeysetPosition, ListFilters, Queryable } from "./team-list";

/** The WHERE conditions of `filters` over the alias `t`, their values numbered from `first`. */
export function filterSql(
  spec: AnyTeamList,
  filters: ListFilters,
  first: number,
): { conditions: string[]; values: unknown[] } {
  const conditions: string[] = [];
  const values: unknown[] = [];
  const { status, window } = spec.filters;
  if (filters.status !== undefined && filters.status.length > 0) {
    const words = filters.status.map((word) => {
      const condition = status[word];
      if (condition === undefined) throw new RangeError(`${spec.list} has no status "${word}"`);
      return condition;
    });
    conditions.push(words.length === 1 ? (words[0] as string) : `(${words.join(" OR ")})`);
  }
  if (filters.from !== undefined || filters.to !== undefined) {
    if (window.requires !== undefined) conditions.push(window.requires);
    if (filters.from !== undefined) {
      values.push(filters.from);
      conditions.push(`${window.column} >= $${first + values.length - 1}::timestamptz`);
    }
    if (filters.to !== undefined) {
      values.push(filters.to);
      conditions.push(`${window.column} < $${first + values.length - 1}::timestamptz`);
    }
  }
  return { conditions, values };
}

/** The rows of a walk or filtered page: the list's version and total, then the item's columns (null when none). */
type WalkRow<Row> = { list_version: string; list_total: number | null; sort_key_text: string | null } & (
  | Row
  | { [K in keyof Row]: null }
);

export interface KeysetPage<Item> {
  items: Item[];
  /** Where the next page starts; undefined on the page that holds the last item. */
  next: KeysetPosition | undefined;
  /** The list's version in the statement's snapshot. */
  version: string;
}

export interface FilteredPage<Item> {
  items: Item[];
  /** Items of the team that match the filters. */
  total: number;
  version: string;
}

/**
 * Reads that page mode's TeamListReader does not: keyset pages (cursor walks, contract 9.1) and
 * filtered pages (9.2), each ONE statement, so items, version and total share a snapshot.
 *
 * A keyset page seeks in the list's index to the item after the last one served (an index
 * condition, never OFFSET), so it costs the same at any depth, and an item that stays in the list
 * with the same key is served exactly once whatever is inserted or deleted around it. A filtered
 * page skips `offset` matching items; its total is the sum of the kept counts of its status words
 * (team_list_status_counts, kept at commit like team_list_stats) when it filters by status alone,
 * and otherwise a count of the matches, whose cost grows with their number (a range of the list's
 * index for a window).
 */
export class TeamListWalker<Row extends { id: string }, Item> {
  constructor(
    private readonly db: Queryable,
    private readonly spec: AnyTeamList & { toItem: (row: Row) => Item },
  ) {}

  async keysetPage(teamId: string, filters: ListFilters, after: KeysetPosition | undefined, limit: number) {
    const key = this.spec.sortKey;
    const values: unknown[] = [teamId, limit + 1];
    const { conditions, values: filterValues } = filterSql(this.spec, filters, 3);
    values.push(...filterValues);
    const matching = this.matching(conditions);
    let selected = `${matching} ORDER BY ${key} DESC, t.id LIMIT $2`;
    if (after !== undefined) {
      const k = values.push(after.key);
      const i = values.push(after.id);
      // One condition enters the index at the first item of the cursor's key and passes over the
      // ties before the cursor: at most a page of them, unless the page that ended at the cursor
      // was all one key (`ties`: every draft guide has the key infinity). Then the rest of the
      // key's ties (by id) and the keys below it are two seeks of at most a page each, which
      // costs about 0.15 ms more to plan, so only such a walk pays it.
      selected = after.ties
        ? `SELECT id, sort_key FROM (
    (${matching} AND ${key} = $${k}::timestamptz AND t.id > $${i} ORDER BY t.id LIMIT $2)
    UNION ALL
    (${matching} AND ${key} < $${k}::timestamptz ORDER BY ${key} DESC, t.id LIMIT $2)
  ) after_cursor ORDER BY sort_key DESC, id LIMIT $2`
        : `${matching} AND ${key} <= $${k}::timestamptz AND (${key} < $${k}::timestamptz OR t.id > $${i})
   ORDER BY ${key} DESC, t.id LIMIT $2`;
    }
    const sql = this.statement(selected, "NULL");
    const { rows } = await this.db.query<WalkRow<Row>>(sql, values);
    const page: KeysetPage<Item> = { items: [], next: undefined, version: rows[0]?.list_version ?? "0" };
    let first: string | undefined;
    let last: KeysetPosition | undefined;
    for (const row of rows) {
      if (row.id === null || row.sort_key_text === null) continue;
      if (page.items.length === limit) {
        // In list order, a page whose first and last keys are equal is all one key.
        page.next = last !== undefined && last.key === first ? { ...last, ties: true } : last;
        break;
      }
      page.items.push(this.spec.toItem(row as Row));
      first ??= row.sort_key_text;
      last = { key: row.sort_key_text, id: row.id };
    }
    return page;
  }

  async filteredPage(teamId: string, filters: ListFilters, offset: number, limit: number): Promise<FilteredPage<Item>> {
    const { conditions, values } = filterSql(this.spec, filters, 4);
    const windowed = filters.from !== undefined || filters.to !== undefined;
    let total: string;
    if (!windowed && filters.status !== undefined && filters.status.length > 0) {
      // A status alone: the kept counts (team_list_status_counts, same snapshot as the page).
      const words = values.push(filters.status) + 3;
      total = `(SELECT COALESCE(sum(item_count), 0) FROM team_list_status_counts WHERE team_id = $1 AND list = '${this.spec.list}' AND status = ANY($${words}::text[]))`;
    } else {
      total = `(SELECT count(*) FROM ${this.spec.list} t WHERE ${this.where(conditions)})`;
    }
    const sql = this.statement(
      `${this.matching(conditions)} ORDER BY ${this.spec.sortKey} DESC, t.id LIMIT $2 OFFSET $3`,
      total,
    );
    const { rows } = await this.db.query<WalkRow<Row>>(sql, [teamId, limit, offset, ...values]);
    const items: Item[] = [];
    for (const row of rows) if (row.id !== null) items.push(this.spec.toItem(row as Row));
    return { items, total: rows[0]?.list_total ?? 0, version: rows[0]?.list_version ?? "0" };
  }

  private where(conditions: string[]): string {
    return ["t.team_id = $1", ...conditions].join(" AND ");
  }

  /** The ids and sort keys of the team's items that meet `conditions`, over the alias `t`. */
  private matching(conditions: string[]): string {
    return `SELECT t.id, ${this.spec.sortKey} AS sort_key FROM ${this.spec.list} t WHERE ${this.where(conditions)}`;
  }

  /**
   * The statement: `page` selects the page's ids and sort keys in list order, `total` is the SQL
   * of the list_total column ("NULL" for none).
   */
  private statement(page: string, total: string): string {
    const { list, columns } = this.spec;
    return `WITH stats AS (
  SELECT ${listStateSql("s")} AS state FROM team_list_stats s WHERE team_id = $1 AND list = '${list}'
), page AS (
  ${page}
)
SELECT COALESCE((SELECT state FROM stats), '0') AS list_version,
       ${total}::float8 AS list_total,
       p.sort_key::text AS sort_key_text, ${columns}
  FROM (SELECT 1) one
  LEFT JOIN (page p JOIN ${list} t ON t.id = p.id JOIN accounts a ON a.id = t.account_id) ON true
 ORDER BY p.sort_key DESC, p.id`;
  }
}
