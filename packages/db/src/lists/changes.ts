import type { Queryable, TeamList } from "./team-list";

/**
 * A place in a team list's change feed, as plain JSON. `base` is a PostgreSQL snapshot
 * (`pg_current_snapshot()` as text): the feed returns what became visible after it. A round of
 * pages reads up to one snapshot, `round`, fixed by the round's first page; `after` is the last
 * entry returned in that round. When a round is drained its `round` becomes the next `base`.
 *
 * Snapshots, not sequence numbers or clocks: a transaction that began before `base` and commits
 * after it is in `base`'s list of running transactions, so its writes count as new.
 */
export interface ChangePosition {
  base: string;
  round?: string;
  after?: { xid: string; id: string };
}

export type Change<Item> = { op: "upsert"; id: string; item: Item } | { op: "delete"; id: string };

export interface ChangePage<Item> {
  /** Oldest first, at most one per item (its state at the round's snapshot). */
  changes: Change<Item>[];
  next: ChangePosition;
  /**
   * More changes wait, in this round or (at the end of a round that an earlier page began) after
   * its snapshot: ask again at once with `next`.
   */
  hasMore: boolean;
}

/**
 * The position is older than a reset of the list (TRUNCATE) or than tombstones already swept: the
 * changes since it can no longer be told. The client starts again with a full walk.
 */
export class ChangePositionExpiredError extends Error {
  constructor(readonly list: string) {
    super(`the change position is older than the retained change log of ${list}`);
    this.name = "ChangePositionExpiredError";
  }
}

/**
 * The database answering has not replayed everything the position has seen (a lagging read
 * replica): ask the primary, or this database again later. Reading here could leave a gap.
 */
export class ChangePositionNotReplayedError extends Error {
  constructor() {
    super("this database has not yet replayed up to the change position");
    this.name = "ChangePositionNotReplayedError";
  }
}

/** The position does not have the shape currentChangePosition and readChanges give. */
export class InvalidChangePositionError extends Error {
  constructor(detail: string) {
    super(`invalid change position: ${detail}`);
    this.name = "InvalidChangePositionError";
  }
}

/** The position "now": the changes committed from here on. Valid on a read replica too. */
export async function currentChangePosition(db: Queryable): Promise<ChangePosition> {
  const { rows } = await db.query<{ snapshot: string }>("SELECT pg_current_snapshot()::text AS snapshot", []);
  const snapshot = rows[0]?.snapshot;
  if (snapshot === undefined) throw new Error("pg_current_snapshot() returned no row");
  return { base: snapshot };
}

// xmin:xmax:xip1,xip2,... (pg_snapshot's text form).
const SNAPSHOT = /^\d{1,20}:\d{1,20}:(\d{1,20}(,\d{1,20})*)?$/;
const XID = /^\d{1,20}$/;

function checkPosition(position: ChangePosition): void {
  if (typeof position !== "object" || position === null) throw new InvalidChangePositionError("not an object");
  if (typeof position.base !== "string" || !SNAPSHOT.test(position.base)) {
    throw new InvalidChangePositionError("base is not a snapshot");
  }
  if (position.round !== undefined && (typeof position.round !== "string" || !SNAPSHOT.test(position.round))) {
    throw new InvalidChangePositionError("round is not a snapshot");
  }
  const after = position.after;
  if (after !== undefined) {
    if (position.round === undefined) throw new InvalidChangePositionError("after without round");
    if (typeof after !== "object" || after === null) throw new InvalidChangePositionError("after is not an object");
    if (typeof after.xid !== "string" || !XID.test(after.xid)) throw new InvalidChangePositionError("after.xid");
    if (typeof after.id !== "string" || after.id.length === 0 || after.id.length > 64) {
      throw new InvalidChangePositionError("after.id");
    }
  }
}

/** SQL: every transaction visible in snapshot `b` is visible in snapshot `a` (a has replayed b). */
function covers(a: string, b: string): string {
  return `(pg_snapshot_xmax(${a}) >= pg_snapshot_xmax(${b}) AND NOT EXISTS (
      SELECT 1 FROM pg_snapshot_xip(${a}) x WHERE x < pg_snapshot_xmax(${b}) AND pg_visible_in_snapshot(x, ${b})))`;
}

/**
 * The changes of one team's list after `t` ($2) up to `s` ($3, else the statement's own snapshot),
 * after the entry ($4 xid, $5 id), at most $6 rows, in ONE statement (one snapshot). An entry is
 * keyed by the newest xid in the window (visible in s, not in t) that concerns its item, and comes
 * from one of three streams, each walked in (key, id) order from `after` by an index, so a page
 * costs the same at any depth of a round (a bulk load writes a million rows with one xid):
 * - the item's own row, when its xid is in the window and its account's is not newer;
 * - its account's row, when the account's xid is in the window and newer than the item's (so
 *   only the account's items written before it are read: (account_id, team_id, xid));
 * - tombstones of the team's list in the window, for items not in the team as of s, once per item.
 * An item whose row or account was written after s is left to the next round (both xids must be
 * visible in s, so the row read is the row as of s).
 * The first row carries the status: 'behind' (this database has not replayed t or s), 'expired'
 * (a TRUNCATE after t, or a sweep that removed tombstones t may not have seen: the sweep keeps only
 * the newest xid it removed, so any transaction running at t that is older than it counts), or 'ok'.
 */
export function changeFeedSql(spec: Pick<TeamList<{ id: string }, unknown>, "list" | "columns">): string {
  const list = spec.list;
  const inWindow = (xid: string) =>
    `${xid} >= (SELECT lo FROM w) AND ${xid} < (SELECT hi FROM w)
     AND pg_visible_in_snapshot(${xid}, (SELECT s FROM w)) AND NOT pg_visible_in_snapshot(${xid}, (SELECT t FROM w))`;
  const inS = (xid: string) => `pg_visible_in_snapshot(${xid}, (SELECT s FROM w))`;
  const inT = (xid: string) => `pg_visible_in_snapshot(${xid}, (SELECT t FROM w))`;
  const after = (xid: string, id: string) => `($4::xid8 IS NULL OR (${xid}, ${id}) > ($4::xid8, $5::text))`;
  return `WITH snapshots AS (
  SELECT $2::pg_snapshot AS t, COALESCE($3::pg_snapshot, pg_current_snapshot()) AS s, pg_current_snapshot() AS now
), w AS MATERIALIZED (
  SELECT t, s, pg_snapshot_xmin(t) AS lo, pg_snapshot_xmax(s) AS hi, CASE
    WHEN NOT (${covers("now", "t")} AND ${covers("now", "s")}) THEN 'behind'
    WHEN EXISTS (SELECT 1 FROM team_list_feed_horizons h
                  WHERE h.list = '${list}'
                    AND ((h.kind = 'reset' AND NOT pg_visible_in_snapshot(h.xid, t))
                      OR (h.kind = 'sweep' AND (NOT pg_visible_in_snapshot(h.xid, t)
                          OR EXISTS (SELECT 1 FROM pg_snapshot_xip(t) x WHERE x <= h.xid))))) THEN 'expired'
    ELSE 'ok' END AS status
  FROM snapshots
), own AS (
  SELECT i.id, i.xid AS k FROM ${list} i JOIN accounts a ON a.id = i.account_id
   WHERE (SELECT status FROM w) = 'ok' AND i.team_id = $1 AND ${after("i.xid", "i.id")} AND ${inWindow("i.xid")}
     AND ${inS("a.xid")} AND (${inT("a.xid")} OR a.xid <= i.xid)
   ORDER BY i.xid, i.id LIMIT $6
), by_account AS (
  SELECT x.id, a.xid AS k FROM accounts a
   CROSS JOIN LATERAL (
     SELECT i.id FROM ${list} i
      WHERE i.account_id = a.id AND i.team_id = $1 AND i.xid < greatest(a.xid, pg_snapshot_xmax((SELECT t FROM w)))
        AND ${inS("i.xid")} AND (${inT("i.xid")} OR i.xid < a.xid)
        AND ($4::xid8 IS NULL OR a.xid > $4::xid8 OR i.id > $5::text)
     OFFSET 0 -- kept a parameterized scan of (account_id, team_id, xid): not flattened into a join
   ) x
   WHERE (SELECT status FROM w) = 'ok' AND ($4::xid8 IS NULL OR a.xid >= $4::xid8) AND ${inWindow("a.xid")}
   ORDER BY a.xid, x.id LIMIT $6
), gone AS (
  SELECT DISTINCT d.item_id AS id, d.xid AS k FROM team_list_tombstones d
   WHERE (SELECT status FROM w) = 'ok' AND d.team_id = $1 AND d.list = '${list}'
     AND ${after("d.xid", "d.item_id")} AND ${inWindow("d.xid")}
     AND NOT EXISTS (SELECT 1 FROM team_list_tombstones l
                      WHERE l.item_id = d.item_id AND l.xid > d.xid
                        AND l.team_id = $1 AND l.list = '${list}' AND ${inS("l.xid")})
     AND NOT EXISTS (SELECT 1 FROM ${list} i WHERE i.id = d.item_id AND i.team_id = $1 AND ${inS("i.xid")})
   ORDER BY d.xid, d.item_id LIMIT $6
), page AS (
  SELECT e.id, e.k, e.present FROM (
    SELECT id, k, true AS present FROM own
    UNION ALL SELECT id, k, true FROM by_account
    UNION ALL SELECT id, k, false FROM gone
  ) e
   ORDER BY e.k, e.id LIMIT $6
)
SELECT w.status, w.s::text AS round, p.k::text AS change_xid, p.id AS change_id, p.present AS change_present, ${spec.columns}
  FROM w
  LEFT JOIN (page p LEFT JOIN ${list} t ON t.id = p.id AND p.present LEFT JOIN accounts a ON a.id = t.account_id) ON true
 ORDER BY p.k, p.id`;
}

interface ChangeMeta {
  status: "ok" | "behind" | "expired";
  round: string;
  change_xid: string | null;
  change_id: string | null;
  change_present: boolean | null;
}

const statements = new WeakMap<object, string>();

/**
 * One page of the changes of `teamId`'s list after `position`, at most `limit` entries, items
 * mapped exactly as the list endpoints map them. Throws ChangePositionExpiredError when the
 * position is older than a reset or a sweep of the list's log, and ChangePositionNotReplayedError
 * when this database (a read replica) has not replayed up to the position yet.
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
  const values = [
    teamId,
    position.base,
    position.round ?? null,
    position.after?.xid ?? null,
    position.after?.id ?? null,
    limit + 1,
  ];
  const { rows } = await db.query<ChangeMeta & (Row | { [K in keyof Row]: null })>(sql, values);
  const first = rows[0];
  if (first === undefined) throw new Error("the change statement returned no status row");
  if (first.status === "behind") throw new ChangePositionNotReplayedError();
  if (first.status === "expired") throw new ChangePositionExpiredError(spec.list);

  const entries = rows.filter((row) => row.change_id !== null);
  // The last page of a round that an earlier page began ends at that page's snapshot: changes
  // committed since then wait in the next round, so a client told "no more" now would stop short
  // of writes that committed before it asked. It is told to ask again when any wait.
  const roundGoesOn = entries.length > limit;
  const hasMore =
    roundGoesOn || (position.round !== undefined && (await changesWaitAfter(db, sql, teamId, first.round)));
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
          after: { xid: last.change_xid as string, id: last.change_id as string },
        }
      : { base: first.round };
  return { changes, next, hasMore };
}

/** Whether the feed holds any change of the team's list after snapshot `round` (or cannot tell here). */
async function changesWaitAfter(db: Queryable, sql: string, teamId: string, round: string): Promise<boolean> {
  const { rows } = await db.query<ChangeMeta>(sql, [teamId, round, null, null, null, 1]);
  const first = rows[0];
  return first === undefined || first.status !== "ok" || first.change_id !== null;
}

/**
 * Whether this database has replayed everything `position` has seen (on a read replica: whether
 * it may answer readChanges for it). readChanges checks it too, in its own statement.
 */
export async function isChangePositionReplayed(db: Queryable, position: ChangePosition): Promise<boolean> {
  checkPosition(position);
  const { rows } = await db.query<{ replayed: boolean }>(
    `SELECT ${covers("pg_current_snapshot()", "$1::pg_snapshot")} AND ($2::pg_snapshot IS NULL OR ${covers(
      "pg_current_snapshot()",
      "$2::pg_snapshot",
    )}) AS replayed`,
    [position.base, position.round ?? null],
  );
  return rows[0]?.replayed === true;
}

/** Tombstones removed per statement: bounds each statement's locks and WAL. */
const SWEEP_BATCH = 10_000;

/**
 * Removes the tombstones of deletes older than `olderThan` and records, per list, the newest
 * transaction removed, so that every position that might not have seen one of them is expired
 * rather than silently missing a delete. Returns the number removed. Safe to run from several
 * processes at once (a row is deleted once; the horizon only moves forward); it writes, so it
 * runs on the primary.
 */
export async function sweepChangeLog(db: Queryable, olderThan: Date): Promise<number> {
  let removed = 0;
  for (;;) {
    const { rows } = await db.query<{ removed: number }>(
      `WITH swept AS (
         DELETE FROM team_list_tombstones
          WHERE ctid = ANY(ARRAY(SELECT ctid FROM team_list_tombstones WHERE deleted_at < $1 LIMIT $2))
         RETURNING list, xid
       ), horizon AS (
         INSERT INTO team_list_feed_horizons AS h (list, kind, xid)
         SELECT list, 'sweep', max(xid) FROM swept GROUP BY list
         ON CONFLICT (list, kind) DO UPDATE SET xid = greatest(h.xid, EXCLUDED.xid), at = now()
       )
       SELECT count(*)::int AS removed FROM swept`,
      [olderThan, SWEEP_BATCH],
    );
    const count = rows[0]?.removed ?? 0;
    removed += count;
    if (count < SWEEP_BATCH) return removed;
  }
}
