import { TEAM_LISTS } from "./lists";
import type { Queryable } from "./team-list";

/**
 * Test support: where the kept status counts (team_list_status_counts) differ from a count of each
 * declared list's items by the conditions of its `status` filter, one line per team, list and
 * status; none when they agree (a row that holds 0 agrees with no items).
 */
export async function statusCountMismatches(db: Queryable): Promise<string[]> {
  const counted = TEAM_LISTS.flatMap((spec) =>
    Object.entries(spec.filters.status).map(
      ([word, condition]) =>
        `SELECT t.team_id, '${spec.list}' AS list, '${word}' AS status, count(*) AS n FROM ${spec.list} t WHERE ${condition} GROUP BY t.team_id`,
    ),
  ).join("\nUNION ALL ");
  const { rows } = await db.query<{ team_id: string; list: string; status: string; kept: string; counted: string }>(
    `SELECT team_id, list, status, COALESCE(k.item_count, 0)::text AS kept, COALESCE(c.n, 0)::text AS counted
       FROM team_list_status_counts k FULL JOIN (${counted}) c USING (team_id, list, status)
      WHERE COALESCE(k.item_count, 0) <> COALESCE(c.n, 0)
      ORDER BY team_id, list, status`,
    [],
  );
  return rows.map((r) => `${r.list}:${r.team_id} status ${r.status}: kept ${r.kept}, counted ${r.counted}`);
}
