import type { Client, QueryResult, QueryResultRow } from "pg";
import { standaloneClient } from "./standalone-client";

/**
 * Test support for overlapping transactions driven step by step: a statement is sent, and the
 * test goes on once it has finished or once the server shows its session waiting for a lock
 * (pg_stat_activity), never after a sleep that races it.
 */

/** How a step left its session: finished (ok or failed), or waiting for a lock another session holds. */
export type StepState = "settled" | "waiting";

/** A promise whose outcome can be looked at without awaiting it. */
export interface Tracked<T> {
  promise: Promise<T>;
  readonly settled: boolean;
  /** The rejection, once settled with one. */
  readonly error: unknown;
}

export function track<T>(promise: Promise<T>): Tracked<T> {
  const state = { settled: false, error: undefined as unknown };
  promise.then(
    () => {
      state.settled = true;
    },
    (error: unknown) => {
      state.settled = true;
      state.error = error;
    },
  );
  return {
    promise,
    get settled() {
      return state.settled;
    },
    get error() {
      return state.error;
    },
  };
}

const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 2));

/**
 * Resolves "settled" once `step` has settled, or "waiting" once `isWaiting` reports its session
 * blocked on a lock, whichever the polls see first.
 */
export async function settledOrWaiting(step: Tracked<unknown>, isWaiting: () => Promise<boolean>): Promise<StepState> {
  for (;;) {
    if (step.settled) return "settled";
    if (await isWaiting()) return step.settled ? "settled" : "waiting";
    await tick();
  }
}

/** A connection of the test's own to the database at `url`, which watches the others' lock waits. */
export class LockMonitor {
  private constructor(private readonly client: Client) {}

  static async open(url: string): Promise<LockMonitor> {
    const client = standaloneClient({ connectionString: url });
    await client.connect();
    return new LockMonitor(client);
  }

  /** The sessions of this database, other than `except`, that wait for a heavyweight lock. */
  async waiters(except: readonly number[] = []): Promise<number[]> {
    const { rows } = await this.client.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock' AND NOT (pid = ANY($1::int[]))`,
      [[...except]],
    );
    return rows.map((r) => r.pid);
  }

  async isWaiting(pids: readonly number[]): Promise<boolean> {
    if (pids.length === 0) return false;
    const { rows } = await this.client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = ANY($1::int[]) AND wait_event_type = 'Lock'`,
      [[...pids]],
    );
    return (rows[0]?.n ?? 0) > 0;
  }

  query<Row extends QueryResultRow>(text: string, values: unknown[] = []): Promise<QueryResult<Row>> {
    return this.client.query<Row>(text, values);
  }

  close(): Promise<void> {
    return this.client.end();
  }
}

/** One connection, driven statement by statement; `step` returns once the statement finished or waits. */
export class SqlSession {
  private constructor(
    private readonly client: Client,
    readonly pid: number,
    private readonly monitor: LockMonitor | undefined,
  ) {}

  /**
   * Without a monitor (the embedded database, whose one session runs one transaction at a time
   * and has no other session to wait for), a step returns when its statement has finished.
   */
  static async open(url: string, monitor?: LockMonitor): Promise<SqlSession> {
    const client = standaloneClient({ connectionString: url });
    // Errors of a statement are the caller's to look at; an idle session's error is not a crash.
    await client.connect();
    const { rows } = await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
    return new SqlSession(client, rows[0]?.pid as number, monitor);
  }

  query<Row extends QueryResultRow>(text: string, values: unknown[] = []): Promise<QueryResult<Row>> {
    return this.client.query<Row>(text, values);
  }

  /** Sends the statement; resolves with its tracker once it finished or this session waits for a lock. */
  async step<Row extends QueryResultRow>(
    text: string,
    values: unknown[] = [],
  ): Promise<Tracked<QueryResult<Row>> & { state: StepState }> {
    const tracked = track(this.client.query<Row>(text, values));
    const monitor = this.monitor;
    const state = await settledOrWaiting(tracked, async () => (await monitor?.isWaiting([this.pid])) === true);
    return Object.assign(tracked, { state });
  }

  close(): Promise<void> {
    return this.client.end();
  }
}

/** The SQLSTATE of a database error (40P01 deadlock, ...), if it is one. */
export function sqlState(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
    ? error.code
    : undefined;
}
