import { randomBytes } from "node:crypto";
import type { Client, ClientConfig } from "pg";
import { standaloneClient } from "../standalone-client";
import type { Queryable } from "./team-list";

/** The channel on which a commit that changed a team's list says so (migration 20261127100000). */
export const CHANGE_NOTICE_CHANNEL = "team_list_changed";

/** One team's list. */
export interface TeamListKey {
  teamId: string;
  list: string;
}

/**
 * How changes are told: `listening` while the LISTEN connection is up and notices sent on other
 * connections were seen to arrive through it; `polling` otherwise (connecting, reconnecting, or a
 * server that does not deliver them, such as the embedded PGlite behind pglite-socket, whose
 * connections share one session: a notice goes back to the connection that committed).
 */
export type ChangeNoticesState = "listening" | "polling";

/** How long after a probe notice that did not come back LISTEN is tried again. */
const PROBE_NOT_HEARD_RETRY_MS = 600_000;

export interface ChangeNoticesOptions {
  /** Where the LISTEN connection goes: the primary, directly (a transaction pooler cannot hold a LISTEN). */
  url: string;
  /**
   * false: never LISTEN, poll from the start (the embedded database, which does not carry notices
   * between connections and serves four connections in all).
   */
  listen?: boolean;
  /** Where the lists' versions are read while polling. */
  versions: Queryable;
  /** While polling, how often the watched lists' versions are read (ms, default 1000). */
  pollIntervalMs?: number;
  /** How long a probe notice may take to come back before notices are taken not to work (ms, default 5000). */
  probeTimeoutMs?: number;
  /** Waits before connecting again after a failure: doubling from the first, capped (ms, default 250 and 30000). */
  firstRetryMs?: number;
  maxRetryMs?: number;
  connectTimeoutMs?: number;
  /** Told each change of state, with why. */
  onState?: (state: ChangeNoticesState, reason: string) => void;
  /** Told each notice of a list change received. */
  onNotice?: () => void;
}

/** A held request's watch on one team's list. */
export interface ListWatch {
  /**
   * Resolves once every change committed from now on will be seen: at once while listening; while
   * polling, once the list's current version is read (so read the feed after this).
   */
  readonly ready: Promise<void>;
  /** Resolves when the list may have changed since `ready`: read the feed again. */
  readonly changed: Promise<void>;
  cancel(): void;
}

const VERSIONS_SQL = `SELECT s.team_id, s.list, s.version::text AS version
  FROM unnest($1::text[], $2::text[]) AS k(team_id, list)
  JOIN team_list_stats s ON s.team_id = k.team_id AND s.list = k.list`;

interface VersionRow {
  team_id: string;
  list: string;
  version: string;
}

class Watch implements ListWatch {
  ready: Promise<void> = Promise.resolve();
  readonly changed: Promise<void>;
  /** What a polling watch compares with: its list's version when it started (null: no stats row yet). */
  baseline: string | null | undefined;
  fire!: () => void;

  constructor(
    readonly id: string,
    /** Made while polling: it compares versions until it ends, whatever the state meanwhile. */
    readonly polls: boolean,
    private readonly remove: (watch: Watch) => void,
  ) {
    this.changed = new Promise<void>((resolve) => {
      this.fire = resolve;
    });
  }

  cancel(): void {
    this.remove(this);
  }
}

class ProbeNotHeardError extends Error {
  constructor(ms: number) {
    super(`a notice sent on another connection did not arrive within ${ms} ms`);
    this.name = "ProbeNotHeardError";
  }
}

const keyOf = ({ teamId, list }: TeamListKey) => `${teamId} ${list}`;

/**
 * The api process's one LISTEN connection on CHANGE_NOTICE_CHANNEL, fanned out in memory to the
 * watches of held requests by team and list: a held request costs no connection of its own. A
 * notice only says "look now"; the changes feed stays the source of truth.
 *
 * The connection is a dedicated pg Client (not from a pool), reconnected with doubling backoff. On
 * each connect a probe notice is sent from a second, short-lived connection: only when it comes
 * back through the LISTEN connection is the state `listening`. Until then, and whenever the
 * connection is lost, watches poll their lists' versions every second, and a loss wakes every
 * watch, since notices may have been missed before it was noticed.
 */
export class ChangeNotices {
  private readonly watches = new Map<string, Set<Watch>>();
  private readonly probes = new Map<string, () => void>();
  /** performance.now() of the last notice per team list (bounded by the number of team lists). */
  private readonly lastNotice = new Map<string, number>();
  /** performance.now() when the state last became `listening`; undefined while polling. */
  private listeningSince: number | undefined;
  private client: Client | undefined;
  private listening = false;
  private stopped = false;
  private retryMs: number;
  private retryTimer: NodeJS.Timeout | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private polling = false;
  private reported: ChangeNoticesState | undefined;
  /** Every connection this has open (the LISTEN connection, one being made, a probe's sender). */
  private readonly open = new Set<Client>();

  constructor(private readonly options: ChangeNoticesOptions) {
    this.retryMs = options.firstRetryMs ?? 250;
  }

  get state(): ChangeNoticesState {
    return this.listening ? "listening" : "polling";
  }

  /** Watches being held now. */
  get size(): number {
    let n = 0;
    for (const set of this.watches.values()) n += set.size;
    return n;
  }

  /** Connects in the background; polling serves watches meanwhile. */
  start(): void {
    if (this.options.listen === false) {
      this.report("polling", "the database does not carry notices between connections (the embedded database)");
      return;
    }
    void this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.pollTimer);
    this.pollTimer = undefined;
    this.client = undefined;
    this.listening = false;
    this.listeningSince = undefined;
    // The LISTEN connection, and one being made or probed.
    await Promise.all([...this.open].map((client) => client.end().catch(() => undefined)));
  }

  /**
   * Whether every commit to `key` since `since` (a performance.now() time) would have been told,
   * and none was: notices have been listened to without a break since before `since`, and no
   * notice for `key` has arrived since. A reading of the list's state begun at `since` is then
   * still current, as far as any watch made from now on is concerned (a later commit fires it).
   */
  quietSince(key: TeamListKey, since: number): boolean {
    if (this.listeningSince === undefined || this.listeningSince >= since) return false;
    return (this.lastNotice.get(keyOf(key)) ?? Number.NEGATIVE_INFINITY) < since;
  }

  watch(key: TeamListKey): ListWatch {
    const id = keyOf(key);
    const watch = new Watch(id, !this.listening, (w) => this.forget(w));
    let set = this.watches.get(id);
    if (set === undefined) {
      set = new Set();
      this.watches.set(id, set);
    }
    set.add(watch);
    if (watch.polls) {
      watch.ready = this.versions([key]).then((versions) => {
        watch.baseline = versions.get(id) ?? null;
      });
      this.ensurePolling();
    }
    return watch;
  }

  private forget(watch: Watch): void {
    const set = this.watches.get(watch.id);
    if (set === undefined) return;
    set.delete(watch);
    if (set.size === 0) this.watches.delete(watch.id);
  }

  private opened(config: ClientConfig): Client {
    const client = standaloneClient({
      ...config,
      connectionString: this.options.url,
      connectionTimeoutMillis: this.options.connectTimeoutMs ?? 5_000,
    });
    this.open.add(client);
    client.once("end", () => this.open.delete(client));
    return client;
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client = this.opened({ keepAlive: true, keepAliveInitialDelayMillis: 10_000 });
    let lost = false;
    const onLost = (reason: string) => {
      if (lost) return;
      lost = true;
      void client.end().catch(() => undefined);
      if (this.client === client) this.disconnected(reason);
    };
    client.on("error", (error) => onLost(error.message));
    client.on("end", () => onLost("the connection closed"));
    client.on("notification", (message) => this.notice(message.payload ?? ""));
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGE_NOTICE_CHANNEL}`);
      await this.probe();
    } catch (error) {
      lost = true;
      await client.query("UNLISTEN *").catch(() => undefined);
      await client.end().catch(() => undefined);
      this.report("polling", (error as Error).message);
      // A server that took the LISTEN but did not carry the probe (the embedded PGlite, a transaction
      // pooler) is asked again only every ten minutes: each try holds two more of its connections,
      // and the embedded database serves four in all.
      if (error instanceof ProbeNotHeardError) {
        if (this.stopped) return;
        this.retryMs = PROBE_NOT_HEARD_RETRY_MS;
        this.retryTimer = setTimeout(() => void this.connect(), PROBE_NOT_HEARD_RETRY_MS);
        this.retryTimer.unref();
        return;
      }
      this.retry();
      return;
    }
    if (this.stopped || lost) {
      await client.end().catch(() => undefined);
      if (!this.stopped) this.retry();
      return;
    }
    this.client = client;
    this.listening = true;
    this.listeningSince = performance.now();
    this.retryMs = this.options.firstRetryMs ?? 250;
    this.report("listening", "notices sent on another connection arrive");
  }

  /** A notice sent from another connection must come back through the LISTEN connection. */
  private async probe(): Promise<void> {
    const payload = `probe ${randomBytes(8).toString("hex")}`;
    const timeoutMs = this.options.probeTimeoutMs ?? 5_000;
    let timer: NodeJS.Timeout | undefined;
    const heard = new Promise<void>((resolve, reject) => {
      this.probes.set(payload, resolve);
      timer = setTimeout(() => reject(new ProbeNotHeardError(timeoutMs)), timeoutMs);
      timer.unref();
    });
    heard.catch(() => undefined);
    try {
      const sender = this.opened({});
      await sender.connect();
      try {
        await sender.query("SELECT pg_notify($1, $2)", [CHANGE_NOTICE_CHANNEL, payload]);
      } finally {
        await sender.end().catch(() => undefined);
      }
      await heard;
    } finally {
      clearTimeout(timer);
      this.probes.delete(payload);
    }
  }

  private report(state: ChangeNoticesState, reason: string): void {
    if (state === this.reported) return;
    this.reported = state;
    this.options.onState?.(state, reason);
  }

  private retry(): void {
    if (this.stopped) return;
    const delay = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, this.options.maxRetryMs ?? 30_000);
    this.retryTimer = setTimeout(() => void this.connect(), delay);
    this.retryTimer.unref();
  }

  private disconnected(reason: string): void {
    this.client = undefined;
    this.listening = false;
    this.listeningSince = undefined;
    this.report("polling", reason);
    // Notices may have been lost before the loss was seen: every held request reads again.
    for (const set of [...this.watches.values()]) for (const watch of set) watch.fire();
    this.retry();
  }

  private notice(payload: string): void {
    const probe = this.probes.get(payload);
    if (probe !== undefined) {
      probe();
      return;
    }
    this.options.onNotice?.();
    this.lastNotice.set(payload, performance.now());
    for (const watch of this.watches.get(payload) ?? []) watch.fire();
  }

  private ensurePolling(): void {
    if (this.pollTimer !== undefined || this.stopped) return;
    this.pollTimer = setInterval(() => void this.poll(), this.options.pollIntervalMs ?? 1_000);
    this.pollTimer.unref();
  }

  /** Compares each polling watch's baseline with its list's version now. */
  private async poll(): Promise<void> {
    if (this.polling) return;
    const polls = [...this.watches.values()].flatMap((set) => [...set].filter((w) => w.polls));
    if (polls.length === 0) {
      clearInterval(this.pollTimer);
      this.pollTimer = undefined;
      return;
    }
    const polled = polls.filter((w) => w.baseline !== undefined);
    this.polling = true;
    try {
      const keys = [...new Set(polled.map((w) => w.id))].map((id) => {
        const at = id.lastIndexOf(" ");
        return { teamId: id.slice(0, at), list: id.slice(at + 1) };
      });
      const versions = await this.versions(keys);
      for (const watch of polled) if ((versions.get(watch.id) ?? null) !== watch.baseline) watch.fire();
    } catch {
      // The database is away: the held requests run out their time, or the next round sees it.
    } finally {
      this.polling = false;
    }
  }

  private async versions(keys: TeamListKey[]): Promise<Map<string, string>> {
    const { rows } = await this.options.versions.query<VersionRow>(VERSIONS_SQL, [
      keys.map((k) => k.teamId),
      keys.map((k) => k.list),
    ]);
    return new Map(rows.map((row) => [keyOf({ teamId: row.team_id, list: row.list }), row.version]));
  }
}
