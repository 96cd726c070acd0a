import type { Queryable } from "@community/db/lists";
import type { Change } from "@community/domain";

export type ListChange = Change<unknown>;

/** What the change feed of @community/db/lists offers, as the api uses it. */
export interface ChangeFeed {
  /** A position that every change committed from now on is after (a plain JSON object). */
  currentPosition(db: Queryable): Promise<unknown>;
  /** Up to `limit` changes of the team's list after `position`, one per item, oldest first. */
  read(
    db: Queryable,
    list: string,
    teamId: string,
    position: unknown,
    limit: number,
  ): Promise<{ changes: ListChange[]; next: unknown; hasMore: boolean }>;
  /** Whether `error` says the position is older than what the log still holds (a reset of the list). */
  isExpired(error: unknown): boolean;
  /** Whether `db` (a replica) has replayed everything up to `position`. */
  caughtUp(db: Queryable, position: unknown): Promise<boolean>;
  /** Removes the log's entries older than `olderThan`; the number removed. */
  sweep(db: Queryable, olderThan: Date): Promise<number>;
}

export const CHANGE_FEED = Symbol("CHANGE_FEED");
