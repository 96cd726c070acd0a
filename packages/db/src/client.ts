import { PrismaPg } from "@prisma/adapter-pg";
import {
  Client,
  type ClientConfig,
  Pool,
  type PoolClient,
  type PoolConfig,
  type QueryConfig,
  type QueryResult,
} from "pg";
import { CircuitBreaker } from "./circuit-breaker";
import { isEmbeddedDatabaseUrl } from "./embedded";
import { databaseFailure, PoolSaturatedError } from "./errors";
import { PrismaClient } from "./generated/prisma/client";
import type { Queryable } from "./lists/team-list";
import { PoolStatements } from "./pool-statements";
import { QueryReadTimeoutError, QueryWatchdog, type WatchedConnection } from "./query-watchdog";
import { standaloneClient } from "./standalone-client";
import { CACHED_PLAN_STALE, StatementNames } from "./statement-names";

export { Prisma, PrismaClient } from "./generated/prisma/client";

export interface DatabaseOptions {
  /** A postgresql:// connection string. */
  url: string;
  /** Most connections the pool opens. */
  poolMax?: number;
  /**
   * How long to wait for a connection (ms), whether waiting for a free one in a full pool or
   * opening a new one: bounds the latency of a saturated pool and of an outage alike.
   */
  connectTimeoutMs?: number;
  /** Server-side statement_timeout (ms): no query holds a connection longer. */
  statementTimeoutMs?: number;
  /** Server-side lock_timeout (ms): a query waiting for a lock gives up this soon. Unset: no limit. */
  lockTimeoutMs?: number;
  /** Consecutive failed connection attempts that open the circuit breaker (default 3). */
  breakerThreshold?: number;
  /** While the breaker is open, how often a background connection attempt probes the server (ms, default 1000). */
  breakerProbeMs?: number;
  /** While the breaker is open, how often it reports the count of refused requests (ms, default 10000). */
  breakerReportMs?: number;
  /** Called with errors of idle pooled connections (for example when the server goes away). */
  onIdleError?: (error: Error) => void;
  /**
   * A streaming replica of `url`: `prismaReads` reads there, through a second pool with the same
   * limits, timeouts and a circuit breaker of its own. Unset: `prismaReads` is `prisma`.
   */
  readUrl?: string;
  /**
   * Longest a read waits for the replica, a connection and the query together (ms, default 1000):
   * past it the primary answers the read and the replica's breaker opens at once.
   */
  readTimeoutMs?: number;
  /**
   * Whether Prisma sends statements with parameters as named, prepared statements (default true;
   * false behind a pooler that cannot keep them; see statementNames).
   */
  preparedStatements?: boolean;
  /** Most statement texts named, so most statements one server connection keeps (default 32; see statementNames). */
  preparedStatementsPerConnection?: number;
}

/** The replica's pool, when there is one. */
export interface ReadReplica {
  pool: Pool;
  /** Opens while the replica cannot be connected to; reads then go to the primary. */
  breaker: CircuitBreaker;
  /** Reads the primary served because the replica could not, since the start. */
  readonly fallbacksTotal: number;
}

/** Told the duration (seconds) and outcome of every query the pool's connections run. */
export type QueryObserver = (seconds: number, failed: boolean) => void;

/**
 * The request path reaches the database through the two Prisma clients, but for the token lookup
 * (`poolStatements`); `pool` is for what needs a connection of its own (graphile-worker, the
 * migration runner and its lock, the fixture loader's COPY, the change-log sweep) and for tests.
 */
export interface Database {
  /** The Prisma client over the primary's pool. */
  prisma: PrismaClient;
  /**
   * The Prisma client for reads that may lag the primary a little (the list pages and walks): over
   * the replica when there is one, falling back to the primary for each read the replica cannot
   * serve (unreachable, its breaker open, too slow, or a query cancelled by replication); else
   * the same client as `prisma`.
   */
  prismaReads: PrismaClient;
  /** The primary's pool, beneath `prisma`. */
  pool: Pool;
  /**
   * Statements on `pool` through node-postgres, named as `prisma`'s are: the token lookup's way
   * alone (AccessTokenRepository; docs/decisions.md, "The token lookup on the pool").
   */
  poolStatements: Queryable;
  /** Times every query from now on (Prisma's and the list statements alike); returns the way to stop. */
  observeQueries(observer: QueryObserver): () => void;
  /** Opens while the server cannot be connected to; the pool then refuses at once (CircuitOpenError). */
  breaker: CircuitBreaker;
  replica: ReadReplica | undefined;
  /**
   * One statement through each Prisma client: Prisma loads its query compiler (a WebAssembly
   * module) on a client's first query, which blocked the event loop for about 2 s on a loaded
   * 2-core machine, long enough for new connections to time out. Run before serving.
   */
  warmUp(): Promise<void>;
  close(): Promise<void>;
}

type ConnectedCallback = ((error: Error) => void) | ((error: null, client: Client) => void);
type ConnectCallback = (
  error: Error | undefined,
  client: PoolClient | undefined,
  done: (release?: unknown) => void,
) => void;
/** How Prisma's clients run: statement names (unset: unnamed) and the interactive transactions' bounds. */
export interface PrismaClientSettings {
  statementNames?: StatementNames;
  /** Longest an interactive transaction may stay open (ms): Prisma's default is 5 s. */
  transactionTimeoutMs?: number;
}

/**
 * The per-connection settings, sent as one SET once a connection is open rather than as startup
 * parameters (pg's `statement_timeout`/`lock_timeout` options): PgBouncer refuses a connection
 * whose startup packet carries parameters it does not know (such as these) unless told to
 * ignore them, and ignoring them would drop the timeouts silently. See docs/operations.md.
 *
 * JIT compilation off: PostgreSQL compiles a statement's expressions with LLVM when its estimated
 * cost passes `jit_above_cost` (100,000 by default), on every execution, prepared or not. On some
 * shapes of data the change feed is estimated past it once its tables are analyzed: a page then
 * took 60-160 ms, about 60 of them compiling, against 3-6 ms without (docs/database.md, "JIT").
 * Every statement of the service is an index walk of at most a page, which JIT cannot make faster.
 */
export function sessionSettingsSql(options: Pick<DatabaseOptions, "statementTimeoutMs" | "lockTimeoutMs">): string {
  const settings = [`SET statement_timeout = ${Math.trunc(options.statementTimeoutMs ?? 10_000)}`, "SET jit = off"];
  if (options.lockTimeoutMs !== undefined) settings.push(`SET lock_timeout = ${Math.trunc(options.lockTimeoutMs)}`);
  return settings.join("; ");
}

/** The Prisma client over a node-postgres pool, through Prisma's pg driver adapter. */
export function prismaClientOver(pool: Pool, settings: PrismaClientSettings = {}): PrismaClient {
  const adapter = new PrismaPg(pool, { statementNameGenerator: settings.statementNames?.generate });
  const timeout = settings.transactionTimeoutMs ?? 10_000;
  // maxWait: how long a transaction waits for a connection, as long as any query may wait for one.
  return new PrismaClient({ adapter, errorFormat: "minimal", transactionOptions: { timeout, maxWait: timeout } });
}

/**
 * One node-postgres pool behind the Prisma client (through the pg driver adapter), so that the
 * service, the seed app and the tests share every connection setting and every code path. A
 * circuit breaker watches the pool's connection attempts: while the server is known to be down,
 * queries fail at once instead of each trying (and waiting for) a new connection. With
 * `readUrl`, a second pool of the same making serves `reads` (see ReplicaReads).
 */
export function createDatabase(options: DatabaseOptions): Database {
  // Observers of every query of both pools (the query-duration metric).
  const observers = new Set<QueryObserver>();
  // One naming for both clients: a replica read that falls back to the primary keeps its name,
  // and no connection holds more than the bound.
  // Never on the embedded database: its socket serves every connection from one PGlite session,
  // so a statement named by one connection is not that connection's to keep (after an error on
  // another connection the api's next named statement was gone: 500s).
  const names =
    (options.preparedStatements ?? true) && !isEmbeddedDatabaseUrl(options.url)
      ? new StatementNames(options.preparedStatementsPerConnection)
      : undefined;
  const { pool, breaker } = openPool(options.url, "the database", options, observers, names);
  const settings: PrismaClientSettings = {
    statementNames: names,
    transactionTimeoutMs: options.statementTimeoutMs ?? 10_000,
  };
  const prisma = prismaClientOver(pool, settings);
  const readTimeoutMs = options.readTimeoutMs ?? 1_000;
  const replica =
    options.readUrl === undefined
      ? undefined
      : new ReplicaReads(
          // Its own connections give up at the read bound too, so that a frozen replica's pool
          // frees them rather than filling up with reads nobody waits for any more.
          openPool(options.readUrl, "the read replica", options, observers, names, readTimeoutMs),
          pool,
          readTimeoutMs,
        );
  const prismaReads = replica === undefined ? prisma : prismaClientOver(replica, settings);
  let closed = false;
  return {
    prisma,
    prismaReads,
    pool,
    poolStatements: new PoolStatements(pool, names),
    breaker,
    replica,
    async warmUp() {
      await prisma.$queryRawUnsafe("SELECT 1");
      if (prismaReads !== prisma) await prismaReads.$queryRawUnsafe("SELECT 1");
    },
    observeQueries(observer) {
      observers.add(observer);
      return () => observers.delete(observer);
    },
    async close() {
      if (closed) return;
      closed = true;
      breaker.stop();
      replica?.breaker.stop();
      await prisma.$disconnect();
      if (prismaReads !== prisma) await prismaReads.$disconnect();
      if (!pool.ended) await pool.end();
      if (replica !== undefined && !replica.pool.ended) await replica.pool.end();
    },
  };
}

/** SQLSTATE serialization_failure: on a replica, a query cancelled by a conflict with recovery. */
const RECOVERY_CONFLICT = "40001";

/** A replica read that did not finish within the read bound. */
class ReplicaReadTimeoutError extends Error {
  constructor(ms: number) {
    super(`the read replica did not answer within ${ms} ms`);
    this.name = "ReplicaReadTimeoutError";
  }
}

/** A query as pg's Pool takes it: a text, or a config object (Prisma's adapter sends `text`, `values`, `rowMode`, `types`). */
type PoolQueryArgs = [text: string | QueryConfig, values?: unknown[]];

/**
 * Reads from the replica, each within `timeoutMs`; a read it cannot serve in time (unreachable,
 * its breaker open, frozen, overloaded, or cancelled by replication) is sent to the primary
 * instead, so a lost replica costs the primary's load, not answers. A read that ran out of time
 * opens the replica's breaker at once: a replica that stopped answering without closing its
 * connections would otherwise make every read wait the bound, until three connection attempts had
 * failed. Errors of the query itself (a bug) are not retried.
 *
 * A pg `Pool` itself, so that Prisma's driver adapter takes it as its pool (`prismaReads`): it
 * opens no connection of its own; its queries go to the replica's pool or the primary's, and a
 * connection asked of it (a transaction, never a list read) is the primary's.
 */
class ReplicaReads extends Pool implements ReadReplica {
  readonly pool: Pool;
  readonly breaker: CircuitBreaker;
  fallbacksTotal = 0;

  constructor(
    replica: { pool: Pool; breaker: CircuitBreaker },
    private readonly primary: Pool,
    private readonly timeoutMs: number,
  ) {
    super({ max: 1 });
    ({ pool: this.pool, breaker: this.breaker } = replica);
  }

  // biome-ignore lint/suspicious/noExplicitAny: pg's query() has a dozen overloads; Prisma's adapter sends a config object and awaits the promise.
  override query(...args: any[]): any {
    return this.read(...(args as PoolQueryArgs));
  }

  // biome-ignore lint/suspicious/noExplicitAny: pg's connect() has a callback and a promise form; both are the primary's.
  override connect(...args: unknown[]): any {
    return (this.primary.connect as (...a: unknown[]) => unknown).apply(this.primary, args);
  }

  private async read(text: string | QueryConfig, values?: unknown[]): Promise<QueryResult> {
    if (this.breaker.state === "closed") {
      try {
        return await this.bounded(text, values);
      } catch (error) {
        const conflict = (error as { code?: unknown }).code === RECOVERY_CONFLICT;
        const timedOut = error instanceof ReplicaReadTimeoutError || error instanceof QueryReadTimeoutError;
        if (timedOut) this.breaker.trip(error as Error);
        else if (!conflict && databaseFailure(error) === undefined) throw error;
      }
    }
    this.fallbacksTotal += 1;
    return this.primary.query(text as string, values);
  }

  private async bounded(text: string | QueryConfig, values?: unknown[]): Promise<QueryResult> {
    let timer: NodeJS.Timeout | undefined;
    const read = this.pool.query(text as string, values);
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new ReplicaReadTimeoutError(this.timeoutMs)), this.timeoutMs);
    });
    try {
      return await Promise.race([read, deadline]);
    } finally {
      clearTimeout(timer);
      // The abandoned read ends by its connection's own timeout; nobody waits for its result.
      read.catch(() => undefined);
    }
  }

  override async end(): Promise<void> {
    // Holds no connection of its own: the replica's and the primary's pools are ended by close().
  }
}

/** A pool of `url` with its circuit breaker, the session settings and the connect bounds of `options`. */
function openPool(
  url: string,
  resource: string,
  options: DatabaseOptions,
  observers: Set<QueryObserver>,
  /** Told of a named statement that met a stale plan. */
  names: StatementNames | undefined,
  /** A tighter bound on connecting and on each query than the options' (the replica's read bound). */
  boundMs?: number,
): { pool: Pool; breaker: CircuitBreaker } {
  const observe = (started: number, failed: boolean) => {
    const seconds = (performance.now() - started) / 1_000;
    for (const observer of observers) observer(seconds, failed);
  };
  const statementTimeoutMs = options.statementTimeoutMs ?? 10_000;
  const connectTimeoutMs = options.connectTimeoutMs ?? 3_000;
  const connection: ClientConfig = {
    connectionString: url,
    connectionTimeoutMillis: boundMs === undefined ? connectTimeoutMs : Math.min(connectTimeoutMs, boundMs),
    application_name: "community-team",
  };
  // The client-side bound on every query (pg's query_timeout is left unset: see QueryWatchdog).
  const watchdog = new QueryWatchdog(boundMs ?? statementTimeoutMs + 1_000);
  const breaker = new CircuitBreaker(resource, {
    threshold: options.breakerThreshold ?? 3,
    probeIntervalMs: options.breakerProbeMs ?? 1_000,
    reportIntervalMs: options.breakerReportMs,
    probe: async () => {
      // A failed probe's socket may still emit 'error' after connect() rejected.
      const probe = standaloneClient(connection);
      try {
        await probe.connect();
      } finally {
        await probe.end().catch(() => undefined);
      }
    },
  });

  /**
   * Reports every connection attempt of the pool to the breaker, bounds and times every query.
   * A submittable query object (a COPY stream) is passed through unwatched: the server's
   * statement_timeout bounds it.
   */
  class WatchedClient extends Client implements WatchedConnection {
    readonly pending: number[] = [];

    constructor(config?: ClientConfig) {
      super(config);
      // A cut (or a dropped) connection fails its queries with the error and also emits it; a
      // checked-out connection may have no other listener, and an unheard 'error' ends the process.
      this.on("error", () => undefined);
    }

    cut(error: Error): void {
      (this as unknown as { connection: { stream: { destroy(error: Error): void } } }).connection.stream.destroy(error);
    }

    /**
     * The callback form (pool.query) and the promise form (Prisma's adapter, a checked-out
     * client's own queries) are watched and timed; a submittable query object (a COPY stream) is
     * passed through. A query's submission time is pushed as it is sent and the oldest shifted as
     * one is answered: pg answers a connection's queries in the order they were sent.
     */
    // biome-ignore lint/suspicious/noExplicitAny: pg's query() has a dozen overloads; this passes each through.
    override query(...args: any[]): any {
      const first = args[0];
      if (typeof first === "object" && first !== null && typeof (first as { submit?: unknown }).submit === "function")
        return super.query(...(args as [QueryConfig]));
      const started = performance.now();
      const last = args.length - 1;
      const callback = args[last];
      if (typeof callback === "function") {
        args[last] = completion(this.pending, started, first, callback as (error: unknown, value: unknown) => void);
        // Pushed once pg took the query (it throws on a malformed one, and never calls back at once).
        const taken = super.query(...(args as [QueryConfig]));
        this.pending.push(started);
        return taken;
      }
      const result: unknown = super.query(...(args as [QueryConfig]));
      if (!(result instanceof Promise)) return result;
      this.pending.push(started);
      return promised(this.pending, started, first, result);
    }

    override connect(): Promise<Client>;
    override connect(callback: ConnectedCallback): void;
    override connect(callback?: ConnectedCallback): Promise<Client> | undefined {
      const attempt = new Promise<Client>((resolve, reject) => {
        super.connect((error: Error | null) => (error ? reject(error) : resolve(this)));
      }).then(
        (client) => {
          breaker.recordSuccess();
          watchdog.watch(this);
          this.once("end", () => watchdog.forget(this));
          return client;
        },
        (error: Error) => {
          breaker.recordFailure(error);
          throw error;
        },
      );
      if (callback === undefined) return attempt;
      attempt.then(
        (client) => (callback as (error: null, client: Client) => void)(null, client),
        (error: Error) => (callback as (error: Error) => void)(error),
      );
      return undefined;
    }
  }
  /**
   * What a query calls when it settles: the oldest submission time of its connection is shifted
   * and the duration observed. Made here, with only what it needs, and not as a closure inside
   * watchedQuery: there it held watchedQuery's whole scope, and with that closure as pg's
   * callback every object a request allocated survived young-generation collections until the
   * next full one (on a listed page, with the bearer guard's own chain gone, about 2 MB promoted
   * per scavenge instead of 6 KB; bench/README.md, "Garbage: the promotion chain").
   */
  const settled = (pending: number[], started: number, failed: boolean): void => {
    pending.shift();
    if (observers.size > 0) observe(started, failed);
  };
  /** A named statement whose plan went stale (a column's type changed): its names are renewed. */
  const staleName = (first: unknown, error: unknown): void => {
    if ((error as { code?: unknown } | null)?.code !== CACHED_PLAN_STALE) return;
    const name = (first as { name?: unknown } | null)?.name;
    if (typeof name === "string" && name !== "") names?.renew(name);
  };
  function completion(
    pending: number[],
    started: number,
    first: unknown,
    callback: (error: unknown, value: unknown) => void,
  ): (error: unknown, value: unknown) => void {
    return (error, value) => {
      settled(pending, started, Boolean(error));
      if (error) staleName(first, error);
      callback(error, value);
    };
  }
  function promised<T>(pending: number[], started: number, first: unknown, result: Promise<T>): Promise<T> {
    return result.then(
      (value) => {
        settled(pending, started, false);
        return value;
      },
      (error: unknown) => {
        settled(pending, started, true);
        staleName(first, error);
        throw error;
      },
    );
  }
  const config: PoolConfig = {
    ...connection,
    Client: WatchedClient,
    max: options.poolMax ?? 10,
    idleTimeoutMillis: 30_000,
  };
  const pool = new GuardedPool(config, breaker);
  // An idle connection that the server drops emits 'error' on the pool; unhandled, it would
  // take the process down during a database outage.
  pool.on("error", (error) => options.onIdleError?.(error));
  // A query the server did not answer within its own statement timeout (plus a second) means the
  // server or the network hangs: counted like a failed connection attempt.
  pool.on("release", (error: Error | null | undefined) => {
    if (error instanceof QueryReadTimeoutError) breaker.recordFailure(error);
  });
  const settings = sessionSettingsSql({ statementTimeoutMs, lockTimeoutMs: options.lockTimeoutMs });
  // Queued before any query of the connection's first user (pg runs a client's queries in order).
  pool.on("connect", (client) => void client.query(settings).catch(() => undefined));

  return { pool, breaker };
}

/**
 * A pool whose every way in (pool.query, Prisma's adapter, pool.connect) asks the circuit
 * breaker first, and which tells a full pool that had no free connection in time (saturation:
 * the server itself answers) from a server that does not answer.
 */
class GuardedPool extends Pool {
  constructor(
    config: PoolConfig,
    private readonly breaker: CircuitBreaker,
  ) {
    super(config);
  }

  // biome-ignore lint/suspicious/noExplicitAny: pg's connect() has a callback and a promise form; this serves both.
  override connect(callback?: ConnectCallback): any {
    const acquire = new Promise<PoolClient>((resolve, reject) => {
      this.breaker.admit();
      const full = this.idleCount === 0 && this.totalCount >= (this.options.max ?? 10);
      super.connect((error, client) => {
        if (error === undefined || error === null) resolve(client as PoolClient);
        // pg-pool says the same when a new connection times out and when a full pool had no free
        // one in time: only the latter is saturation.
        else
          reject(
            full && /timeout exceeded when trying to connect/i.test(error.message)
              ? new PoolSaturatedError(error)
              : error,
          );
      });
    });
    if (callback === undefined) return acquire;
    acquire.then(
      (client) => callback(undefined, client, (release) => client.release(release as boolean | Error | undefined)),
      (error: Error) => callback(error, undefined, () => undefined),
    );
    return undefined;
  }
}
