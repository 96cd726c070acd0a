import type { Queryable, TeamList } from "./team-list";

/**
 * A place in a team list's change feed, as plain JSON: a state of the list, named as the database
 * names it in team_list_stats, `"<version>.<stamp>"` ("0" for a list without statistics). The
 * feed returns the commits that moved the list after `base`. A round of pages reads up to one
 * state, `round`, fixed by the round's first page; `after` is the last entry returned in that
 * round (its commit's version and its id). When a round is drained its `round` becomes the next
 * `base`.
 *
 * A position lives in the data, not in one server's physical history: versions are given under
 * the list's stats row lock at COMMIT, so per team list they follow commit order (a transaction
 * that began before `base` and commits after it gets a newer version), and each comes with a
 * random stamp recorded in team_list_commits. A restore, a dump into another cluster or a lossy
 * failover that hands a version out again gives it another stamp: a position whose state is not in
 * this database's history is refused (ChangePositionUnknownError), never read with a gap.
 */
export interface ChangePosition {
  base: string;
  round?: string;
  after?: { version: string; id: string };
}

export type Change<Item> = { op: "upsert"; id: string; item: Item } | { op: "delete"; id: string };

export interface ChangePage<Item> {
  /** Oldest first, at most one per item (its state when the page was read, at or before the round's state). */
  changes: Change<Item>[];
  next: ChangePosition;
  /**
   * More changes wait, in this round or (at the end of a round that an earlier page began) after
   * its state: ask again at once with `next`.
   */
  hasMore: boolean;
}

/**
 * The position is older than a reset of the list (TRUNCATE): the changes since it can no longer
 * be told. The client starts again with a full walk.
 */
export class ChangePositionExpiredError extends Error {
  constructor(readonly list: string) {
    super(`the change position is older than a reset of ${list}`);
    this.name = "ChangePositionExpiredError";
  }
}

/**
 * The position names a state of the list that this database does not hold: one of a lost history
 * (a restore to an earlier point, a lossy failover), swept from the log past the retention, or not
 * yet replayed here (a lagging read replica: ask the primary, which decides).
 */
export class ChangePositionUnknownError extends Error {
  constructor(readonly list: string) {
    super(`the change position is not in this database's history of ${list}`);
    this.name = "ChangePositionUnknownError";
  }
}

/** The position does not have the shape currentChangePosition and readChanges give. */
export class InvalidChangePositionError extends Error {
  constructor(detail: string) {
    super(`invalid change position: ${detail}`);
    this.name = "InvalidChangePositionError";
  }
}

/**
 * SQL: the state of a list as a position names it, over a team_list_stats row `s` (null without one).
 * One text, so that every comparison of states (ETags, caches, positions) compares stamps too.
 */
export function listStateSql(alias: string): string {
  return `(${alias}.version::text || '.' || ${alias}.stamp::text)`;
}

/** The position "now" of a team's list: the changes committed from here on. Valid on a read replica too. */
export async function currentChangePosition(
  db: Queryable,
  of: { list: string; teamId: string },
): Promise<ChangePosition> {
  const { rows } = await db.query<{ state: string | null }>(
    `SELECT ${listStateSql("s")} AS state FROM team_list_stats s WHERE s.team_id = $1 AND s.list = $2`,
    [of.teamId, of.list],
  );
  return { base: rows[0]?.state ?? "0" };
}

// "<version>.<stamp>", or "0" (no statistics).
const STATE = /^(?:0|[1-9]\d{0,18}\.\d{1,19})$/;
const VERSION = /^[1-9]\d{0,18}$/;

/** A state's version and stamp, as SQL bigint text. */
function parts(state: string): [string, string] {
  const dot = state.indexOf(".");
  return dot < 0 ? ["0", "0"] : [state.slice(0, dot), state.slice(dot + 1)];
}

function checkPosition(position: ChangePosition): void {
  if (typeof position !== "object" || position === null) throw new InvalidChangePositionError("not an object");
  if (typeof position.base !== "string" || !STATE.test(position.base)) {
    throw new InvalidChangePositionError("base is not a list state");
  }
  if (position.round !== undefined && (typeof position.round !== "string" || !STATE.test(position.round))) {
    throw new InvalidChangePositionError("round is not a list state");
  }
  const after = position.after;
  if (after !== undefined) {
    if (position.round === undefined) throw new InvalidChangePositionError("after without round");
    if (typeof after !== "object" || after === null) throw new InvalidChangePositionError("after is not an object");
    if (typeof after.version !== "string" || !VERSION.test(after.version)) {
      throw new InvalidChangePositionError("after.version");
    }
    if (typeof after.id !== "string" || after.id.length === 0 || after.id.length > 64) {
      throw new InvalidChangePositionError("after.id");
    }
  }
}

/**
 * The changes of one team's list after state ($2 version, $3 stamp) up to the state ($4 version,
 * $5 stamp; else the statement's current one), after the entry ($6 version, $7 id), at most $8
 * rows, in ONE statement. Each item's latest change is kept at COMMIT in team_list_latest (its
 * version, and whether the item is still in the team's list: upserts and deletes alike, an item
 * whose account changed included); the window is the versions in (lo, hi], read with one range
 * scan of (team_id, list, version, item_id) from `after`, so the first page since a position costs
 * the same however many commits lie behind it (issue 44: it walked every commit of the window).
 * An item whose latest change comes after hi is left to the next round.
 * The first row carries the status: 'unknown' (a state of the position is not in this database's
 * history: lost, swept or not replayed; the list's current state always is), 'expired' (a TRUNCATE in the window) or 'ok', the round's
 * state and the list's current state.
 */
export function changeFeedSql(spec: Pick<TeamList<{ id: string }, unknown>, "list" | "columns">): string {
  const list = spec.list;
  const commits = `team_list_commits`;
  const of = (alias: string) => `${alias}.team_id = $1 AND ${alias}.list = '${list}'`;
  return `WITH st AS MATERIALIZED (
  SELECT s.version, s.stamp FROM team_list_stats s WHERE ${of("s")}
), w AS MATERIALIZED (
  SELECT $2::bigint AS lo,
         CASE WHEN $4::bigint IS NULL THEN COALESCE((SELECT version FROM st), 0) ELSE $4::bigint END AS hi,
         CASE WHEN $4::bigint IS NULL THEN COALESCE((SELECT stamp FROM st), 0) ELSE $5::bigint END AS hi_stamp
), chk AS MATERIALIZED (
  SELECT w.lo, w.hi, w.hi_stamp, CASE
    WHEN NOT (CASE WHEN w.lo = 0
                   THEN $3::bigint = 0 AND (NOT EXISTS (SELECT 1 FROM st)
                     OR EXISTS (SELECT 1 FROM ${commits} c WHERE ${of("c")} AND c.previous_version = 0))
                   ELSE EXISTS (SELECT 1 FROM ${commits} c WHERE ${of("c")} AND c.version = w.lo AND c.stamp = $3::bigint)
                     OR EXISTS (SELECT 1 FROM st WHERE st.version = w.lo AND st.stamp = $3::bigint)
              END)
      OR ($4::bigint IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM ${commits} c WHERE ${of("c")} AND c.version = $4::bigint AND c.stamp = $5::bigint))
      OR w.hi < w.lo THEN 'unknown'
    WHEN EXISTS (SELECT 1 FROM ${commits} c WHERE ${of("c")} AND c.version > w.lo AND c.version <= w.hi AND c.reset)
      THEN 'expired'
    ELSE 'ok' END AS status
  FROM w
), page AS (
  SELECT l.item_id AS id, l.version AS k, l.present FROM team_list_latest l, chk k
   -- lo as the parameter itself, so that the plan knows how much of the list lies after it.
   WHERE k.status = 'ok' AND ${of("l")} AND l.version > $2::bigint AND l.version <= k.hi
     AND ($6::bigint IS NULL OR (l.version, l.item_id) > ($6::bigint, $7::text))
   ORDER BY l.version, l.item_id LIMIT $8
)
SELECT k.status, CASE WHEN k.hi = 0 THEN '0' ELSE k.hi::text || '.' || k.hi_stamp::text END AS round,
       COALESCE((SELECT version::text || '.' || stamp::text FROM st), '0') AS current_state,
       p.k::text AS change_version, p.id AS change_id, p.present AS change_present, ${spec.columns}
  FROM chk k
  LEFT JOIN (page p LEFT JOIN ${list} t ON t.id = p.id AND p.present LEFT JOIN accounts a ON a.id = t.account_id) ON true
 ORDER BY p.k, p.id`;
}

interface ChangeMeta {
  status: "ok" | "unknown" | "expired";
  round: string;
  current_state: string;
  change_version: string | null;
  change_id: string | null;
  change_present: boolean | null;
}

const statements = new WeakMap<object, string>();

/** The parameters of changeFeedSql for a page of at most `limit` entries after `position` (one more is read, for has_more). */
export function changeFeedValues(teamId: string, position: ChangePosition, limit: number): (string | number | null)[] {
  const [lo, loStamp] = parts(position.base);
  const [hi, hiStamp] = position.round === undefined ? [null, null] : parts(position.round);
  return [teamId, lo, loStamp, hi, hiStamp, position.after?.version ?? null, position.after?.id ?? null, limit + 1];
}

/**
 * One page of the changes of `teamId`'s list after `position`, at most `limit` entries, items
 * mapped exactly as the list endpoints map them. Throws ChangePositionExpiredError when the
 * position is older than a reset of the list, and ChangePositionUnknownError when a state it
 * names is not in this database's history (on a read replica: perhaps not replayed yet).
 */
export async function readChanges<Row extends { id: string }, Item>(
  db: Queryable,
  spec: TeamList<Row, Item>,
  teamId: string,
  position: ChangePosition,
  limit: number,
): Promise<ChangePage<Item>> {
  checkPosition(position);
  if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`limit must be a positive integer, got ${limit}`);
  let sql = statements.get(spec);
  if (sql === undefined) {
    sql = changeFeedSql(spec);
    statements.set(spec, sql);
  }
  const values = changeFeedValues(teamId, position, limit);
  const { rows } = await db.query<ChangeMeta & (Row | { [K in keyof Row]: null })>(sql, values);
  const first = rows[0];
  if (first === undefined) throw new Error("the change statement returned no status row");
  if (first.status === "unknown") throw new ChangePositionUnknownError(spec.list);
  if (first.status === "expired") throw new ChangePositionExpiredError(spec.list);

  const entries = rows.filter((row) => row.change_id !== null);
  const roundGoesOn = entries.length > limit;
  // The last page of a round that an earlier page began ends at that page's state: commits since
  // then wait in the next round, so a client told "no more" now would stop short of writes that
  // committed before it asked. It is told to ask again when the list has moved on.
  const hasMore = roundGoesOn || (position.round !== undefined && first.current_state !== first.round);
  const page = roundGoesOn ? entries.slice(0, limit) : entries;
  const changes: Change<Item>[] = page.map((row) =>
    row.change_present
      ? { op: "upsert", id: row.change_id as string, item: spec.toItem(row as Row) }
      : { op: "delete", id: row.change_id as string },
  );
  const last = page.at(-1);
  const next: ChangePosition =
    roundGoesOn && last !== undefined
      ? {
          base: position.base,
          round: first.round,
          after: { version: last.change_version as string, id: last.change_id as string },
        }
      : { base: first.round };
  return { changes, next, hasMore };
}

/** Rows removed per statement: bounds each statement's locks and WAL. */
const SWEEP_BATCH = 10_000;

/**
 * Removes the commit log's rows older than `olderThan` (per team list, every row before the last
 * one committed before it: a state that was current at the cut-off stays known, so a position
 * taken since stays valid, and one older is refused as unknown), the latest changes older than
 * the oldest state kept, then the tombstones of deletes
 * older than `olderThan` that no window of a known state can hold (their commit is gone, or is
 * the oldest kept: a window starts after its first state). Returns the number of tombstones removed. Safe to run from
 * several processes at once; it writes, so it runs on the primary.
 */
export async function sweepChangeLog(db: Queryable, olderThan: Date): Promise<number> {
  // Sweeps of one form over different tables and keys: each SQL statement whole reads better than a template.
  for (;;) {
    const { rows } = await db.query<{ removed: number }>(
      `WITH kept AS (
         SELECT team_id, list, max(version) AS version FROM team_list_commits WHERE committed_at < $1 GROUP BY team_id, list
       ), swept AS (
         DELETE FROM team_list_commits
          WHERE ctid = ANY(ARRAY(SELECT c.ctid FROM team_list_commits c JOIN kept ON kept.team_id = c.team_id
                                    AND kept.list = c.list AND c.version < kept.version LIMIT $2))
         RETURNING 1
       )
       SELECT count(*)::int AS removed FROM swept`,
      [olderThan, SWEEP_BATCH],
    );
    if ((rows[0]?.removed ?? 0) < SWEEP_BATCH) break;
  }
  // Latest changes older than every state the log still knows: no window (lo, hi] can hold them.
  for (;;) {
    const { rows } = await db.query<{ removed: number }>(
      `WITH kept AS (
         SELECT team_id, list, min(version) AS version FROM team_list_commits GROUP BY team_id, list
       ), swept AS (
         DELETE FROM team_list_latest
          WHERE ctid = ANY(ARRAY(SELECT l.ctid FROM kept JOIN team_list_latest l ON l.team_id = kept.team_id
                                    AND l.list = kept.list AND l.version < kept.version LIMIT $1))
         RETURNING 1
       )
       SELECT count(*)::int AS removed FROM swept`,
      [SWEEP_BATCH],
    );
    if ((rows[0]?.removed ?? 0) < SWEEP_BATCH) break;
  }
  let removed = 0;
  for (;;) {
    const { rows } = await db.query<{ removed: number }>(
      `WITH swept AS (
         DELETE FROM team_list_tombstones
          WHERE ctid = ANY(ARRAY(
            SELECT d.ctid FROM team_list_tombstones d
             WHERE d.deleted_at < $1
               AND NOT EXISTS (SELECT 1 FROM team_list_commits c
                                WHERE c.team_id = d.team_id AND c.list = d.list AND c.xid = d.xid
                                  AND EXISTS (SELECT 1 FROM team_list_commits o
                                               WHERE o.team_id = c.team_id AND o.list = c.list AND o.version < c.version))
             LIMIT $2))
         RETURNING 1
       )
       SELECT count(*)::int AS removed FROM swept`,
      [olderThan, SWEEP_BATCH],
    );
    const count = rows[0]?.removed ?? 0;
    removed += count;
    if (count < SWEEP_BATCH) return removed;
  }
}
