import type { Queryable } from "@community/db/lists";

/** The database clock and when each caller joined their team: one statement for every caller asking in the same turn. */
const MEMBERSHIPS_SQL = `SELECT id, team_id, extract(epoch FROM team_since)::float8 AS team_since,
       extract(epoch FROM now())::float8 AS now
  FROM users WHERE id = ANY($1::text[])`;

export type MembershipRow = {
  id: string;
  team_id: string | null;
  team_since: number;
  now: number;
};

type Waiter = { resolve: (row: MembershipRow | undefined) => void; reject: (error: unknown) => void };

/**
 * Batches the membership reads of one turn of the event loop into one statement: a commit wakes
 * every held request of its team at once, and each must check its caller's team and the clock
 * again before answering (a pool of 10 served 400 of them one by one).
 */
export class MembershipReads {
  private batch: Map<string, Waiter[]> | undefined;

  constructor(private readonly db: Queryable) {}

  /** The user's row (undefined: no such user), read with the others asked in this turn. */
  of(userId: string): Promise<MembershipRow | undefined> {
    return new Promise((resolve, reject) => {
      if (this.batch === undefined) {
        const batch = new Map<string, Waiter[]>();
        this.batch = batch;
        setImmediate(() => void this.flush(batch));
      }
      const waiters = this.batch.get(userId) ?? [];
      waiters.push({ resolve, reject });
      this.batch.set(userId, waiters);
    });
  }

  private async flush(batch: Map<string, Waiter[]>): Promise<void> {
    if (this.batch === batch) this.batch = undefined;
    try {
      const { rows } = await this.db.query<MembershipRow>(MEMBERSHIPS_SQL, [[...batch.keys()]]);
      const byId = new Map(rows.map((row) => [row.id, row]));
      for (const [id, waiters] of batch) for (const waiter of waiters) waiter.resolve(byId.get(id));
    } catch (error) {
      for (const waiters of batch.values()) for (const waiter of waiters) waiter.reject(error);
    }
  }
}
