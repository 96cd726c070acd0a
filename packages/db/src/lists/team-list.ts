import type { QueryResult, QueryResultRow } from "pg";

/**
 * What the list statements need of a connection pool: pg's `Pool` has it. Each statement names
 * the row type it returns, declared next to its SQL.
 */
export interface Queryable {
  query<Row extends QueryResultRow>(text: string, values: unknown[]): Promise<QueryResult<Row>>;
}

export type ListName = "events" | "guides";

/** What differs between the team lists: the table, its order, the columns and their mapping. */
export interface TeamList<Row extends { id: string }, Item> {
  list: ListName;
  /**
   * The list's order as one key, descending, ties by id ascending; an SQL expression over the
   * alias `t` that matches the leading sort column of the list's index, so seeks use that index.
   */
  sortKey: string;
  /** Select list over the item `t` and its account `a`: exactly the columns of `Row`. */
  columns: string;
  /** Database row -> the contract's item. */
  toItem: (row: Row) => Item;
}

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
  teamId: string | null;
  lists?: Readonly<Record<ListName, ListState | null>>;
}
