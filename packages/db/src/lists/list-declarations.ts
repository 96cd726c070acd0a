import { TEAM_LISTS } from "./lists";
import type { AnyTeamList, Queryable } from "./team-list";

/** A row of the database's `team_lists`: what the list triggers read of each list. */
interface DeclarationRow {
  list: string;
  sort_key: string;
  status_sql: string;
}

/** SQL text compared as written, give or take the alias `t.`, outer parentheses and whitespace. */
function normalized(sql: string): string {
  let text = sql.replace(/\bt\./g, "").replace(/\s+/g, " ").trim();
  while (text.startsWith("(") && text.endsWith(")") && balanced(text.slice(1, -1))) text = text.slice(1, -1).trim();
  return text;
}

function balanced(text: string): boolean {
  let depth = 0;
  for (const char of text) {
    if (char === "(") depth += 1;
    else if (char === ")" && --depth < 0) return false;
  }
  return depth === 0;
}

/**
 * Where the database's declaration of the team lists (`team_lists`, which the list triggers read:
 * each list's sort key and status expression) and TEAM_LISTS disagree, one sentence each; empty
 * when they agree. A list declared on one side only, or with another sort key or status
 * expression, would keep counts, versions and change logs that the list's reads do not match.
 */
export async function listDeclarationMismatches(
  db: Queryable,
  lists: readonly AnyTeamList[] = TEAM_LISTS,
): Promise<string[]> {
  const { rows } = await db.query<DeclarationRow>(
    "SELECT list, sort_key, status_sql FROM team_lists ORDER BY list",
    [],
  );
  const declared = new Map(rows.map((row) => [row.list, row]));
  const mismatches: string[] = [];
  for (const spec of lists) {
    const row = declared.get(spec.list);
    declared.delete(spec.list);
    if (row === undefined) {
      mismatches.push(`${spec.list} is in TEAM_LISTS but not in the database's team_lists`);
      continue;
    }
    if (normalized(row.sort_key) !== normalized(spec.sortKey))
      mismatches.push(
        `${spec.list}: team_lists.sort_key is ${row.sort_key}, its declaration's sortKey ${spec.sortKey}`,
      );
    if (normalized(row.status_sql) !== normalized(spec.statusSql))
      mismatches.push(
        `${spec.list}: team_lists.status_sql is ${row.status_sql}, its declaration's statusSql ${spec.statusSql}`,
      );
  }
  for (const list of declared.keys()) mismatches.push(`${list} is in the database's team_lists but not in TEAM_LISTS`);
  return mismatches;
}
