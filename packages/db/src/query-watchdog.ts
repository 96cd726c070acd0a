/**
 * The client-side bound on the queries of a pool: a server or a network that stops answering
 * without closing the connection (a stalled host, a dropped route) must not hang a request, and
 * this needs nothing from the server or a pooler in between.
 *
 * pg's own `query_timeout` arms a timer per query and wraps the query's callback in a closure
 * over its scope. Under load those kept each query, its callback and its rows alive past
 * young-generation collections (bench/results/2026-11-history.md, "Garbage: the promotion chain": a closure per
 * query kept where pg keeps its callback is what does it).
 * Here one interval per pool looks at the connections instead, and each connection keeps the
 * submission times of its unanswered queries: a number per query, no timer.
 *
 * A connection whose oldest unanswered query is older than the bound is cut with a
 * QueryReadTimeoutError: pg fails every query of that connection with it (the pool then drops the
 * connection) and the caller sees the same "Query read timeout" as pg's own bound gave.
 */

/** What the watchdog needs of a connection. */
export interface WatchedConnection {
  /** When its unanswered queries were sent (performance.now()), oldest first. */
  readonly pending: number[];
  /** Closes the connection's socket with `error`, which fails its queries. */
  cut(error: Error): void;
}

export class QueryReadTimeoutError extends Error {
  constructor(readonly boundMs: number) {
    // "Query read timeout" is pg's wording for the same bound: errors.ts and the breaker know it.
    super(`Query read timeout: the database did not answer within ${boundMs} ms`);
    this.name = "QueryReadTimeoutError";
  }
}

export class QueryWatchdog {
  private readonly connections = new Set<WatchedConnection>();
  private interval: NodeJS.Timeout | undefined;
  /** How often the connections are looked at: a tenth of the bound, between 10 ms and 1 s. */
  readonly tickMs: number;

  constructor(
    readonly boundMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.tickMs = Math.min(1_000, Math.max(10, Math.floor(boundMs / 10)));
  }

  /** Watches `connection` until it is forgotten or cut; the interval runs while any is watched. */
  watch(connection: WatchedConnection): void {
    this.connections.add(connection);
    if (this.interval === undefined) {
      this.interval = setInterval(() => this.check(), this.tickMs);
      // Never what keeps a process alive.
      this.interval.unref();
    }
  }

  forget(connection: WatchedConnection): void {
    this.connections.delete(connection);
    if (this.connections.size === 0 && this.interval !== undefined) {
      clearInterval(this.interval);
      this.interval = undefined;
    }
  }

  /** Cuts every connection whose oldest unanswered query has waited the bound or longer. */
  check(): void {
    const now = this.now();
    for (const connection of this.connections) {
      const oldest = connection.pending[0];
      if (oldest === undefined || now - oldest < this.boundMs) continue;
      connection.pending.length = 0;
      this.forget(connection);
      connection.cut(new QueryReadTimeoutError(this.boundMs));
    }
  }

  /** Connections watched now (for tests). */
  get size(): number {
    return this.connections.size;
  }
}
