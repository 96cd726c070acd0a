import type { ItemOf, ListDefinition, StatusOf } from "@community/domain";
import type { QueryResultRow } from "pg";

/** The rows of one statement. */
export interface StatementResult<Row> {
  rows: Row[];
}

/**
 * What the list statements need to run: one statement with bound parameters, its rows back. The
 * service sends them through the Prisma client (PrismaStatements); pg's `Pool` has it too (the
 * benchmark's floor and the tests' oracles). Each statement names the row type it returns,
 * declared next to its SQL.
 */
export interface Queryable {
  query<Row extends QueryResultRow>(text: string, values: unknown[]): Promise<StatementResult<Row>>;
}

/**
 * The SQL of a list's filters (contract 9.2): each status word of its definition as an SQL
 * condition over the alias `t`, and the column of its half-open time window.
 */
export interface ListFilterSpec<Status extends string = string> {
  status: Readonly<Record<Status, string>>;
  /** `from <= column < to`; `requires` (if any) is a condition every item in a window meets. */
  window: { column: string; requires?: string };
}

/**
 * The SQL of a team list, keyed by its definition in @community/domain (name, wire schema,
 * status words, window parameters): its order as one key, its columns, the row -> item mapper and
 * the SQL of its filters. The token lookup, the readers and the change feed are derived from the
 * lists of TEAM_LISTS (lists.ts); the api's controllers, DTOs and OpenAPI document from their
 * definitions.
 */
export interface TeamList<
  Row extends { id: string },
  Item,
  Definition extends ListDefinition = ListDefinition<string, Item>,
> {
  definition: Definition;
  /** The definition's name: the table, the list of team_list_stats and of the change log. */
  list: Definition["name"];
  filters: ListFilterSpec<StatusOf<Definition>>;
  /**
   * The list's order as one key, descending, ties by id ascending; an SQL expression over the
   * alias `t` that matches the leading sort column of the list's index, so seeks use that index.
   */
  sortKey: string;
  /**
   * An item's status word as one SQL expression over the alias `t` (the words of
   * `filters.status`). The list triggers count items per status with it (the database's
   * `team_lists` holds the same expression; listDeclarationMismatches holds the two equal).
   */
  statusSql: string;
  /** Select list over the item `t` and its account `a`: exactly the columns of `Row`. */
  columns: string;
  /** Database row -> the contract's item. */
  toItem: (row: Row) => Item;
}

/** A list's SQL for its definition: `list` is the definition's name. */
export function listSql<Row extends { id: string }, Definition extends ListDefinition>(
  definition: Definition,
  sql: Omit<TeamList<Row, ItemOf<Definition>, Definition>, "definition" | "list">,
): TeamList<Row, ItemOf<Definition>, Definition> {
  return { definition, list: definition.name, ...sql };
}

/**
 * Validated filters of a list request: status words of the list's declaration, and the window's
 * bounds as RFC 3339 instants (PostgreSQL parses them; `from` < `to` already checked).
 */
export interface ListFilters {
  status?: readonly string[];
  from?: string;
  to?: string;
}

/** Where a keyset walk stands: the sort key (PostgreSQL text of a timestamptz) and id of the last item served. */
export interface KeysetPosition {
  key: string;
  id: string;
  /**
   * The page that ended here was all one key, so many items of that key may come before `id`:
   * the next page seeks past them rather than reading them (TeamListWalker.keysetPage).
   */
  ties?: boolean;
}

/** Any declared list, whatever its row and item types. */
// biome-ignore lint/suspicious/noExplicitAny: a list's row and item types vary per declaration
export type AnyTeamList = TeamList<any, any>;

/** The SQL of the list `Definition` declares, whatever its row type. */
// biome-ignore lint/suspicious/noExplicitAny: the row type is the SQL's own business
export type TeamListOf<Definition extends ListDefinition> = TeamList<any, ItemOf<Definition>, Definition>;

export interface TeamListQuery {
  teamId: string;
  offset: number;
  limit: number;
  /** The version the client already holds (from a valid If-None-Match), or "*" for any. */
  knownVersion?: string | undefined;
}

/** One page of a team's items, the team's total and the list's version, read from one snapshot. */
export interface TeamListResult<Item> {
  items: Item[];
  total: number;
  /** The list's version in the snapshot that the items and the total come from. */
  version: string;
  /** The client's version is current: no items were read. */
  notModified: boolean;
}

/** How pages of one list are read (TeamListReader); what the api's repositories wrap. */
export interface TeamListPages<Item> {
  read(query: TeamListQuery): Promise<TeamListResult<Item>>;
}

/** A list's version (team_list_stats) and its number of items, from one snapshot. */
export interface ListState {
  version: string;
  total: number;
}

/**
 * The caller's team as authentication found it: its id (null for a user without a team) and, when
 * the token lookup read them, the state of each of its lists (null while a list has no stats row).
 */
export interface CallerTeam {
  /** The calling user (the change feed checks when they joined their team). */
  userId: string;
  teamId: string | null;
  lists?: Readonly<Record<string, ListState | null>>;
  /**
   * When the token lookup read them: when the user joined the team and the database clock, in
   * seconds since the epoch (the changes feed needs no statement of its own for them).
   */
  membership?: Readonly<{ teamSince: number; now: number }>;
  /**
   * `performance.now()` just before the statement that read `lists` was sent: a commit that
   * statement did not see was told (LISTEN/NOTIFY) after this, which lets a held changes request
   * start from `lists` without reading the feed (ChangeNotices.quietSince).
   */
  listsReadAt?: number;
}
