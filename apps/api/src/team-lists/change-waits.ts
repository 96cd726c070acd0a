import {
  ChangeNotices,
  type ChangeNoticesState,
  type Database,
  isEmbeddedDatabaseUrl,
  type ListWatch,
  type TeamListKey,
} from "@community/db";
import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from "@nestjs/common";
import { Counter } from "prom-client";
import { APP_CONFIG, type AppConfig } from "../config/config";
import { DATABASE } from "../database/database.tokens";
import { DrainState } from "../health/drain-state";
import { MetricsService } from "../metrics/metrics.service";
import type { PageBody } from "./page-cache";
import { HeldRequestsLimitedException } from "./team-lists.problems";

/** One reading of the changes feed, and whether it found nothing to tell (no changes, no more). */
export interface FeedRead {
  body: PageBody;
  nothingNew: boolean;
}

export interface HeldRequest {
  /** The team's list whose commits end the wait. */
  key: TeamListKey;
  /** Who holds it: the access token's digest (at most waitMaxPerToken held at once). */
  holder: string;
  /** The longest hold (`wait`), in seconds. */
  seconds: number;
  /** Aborted when the client goes away: its slot is freed at once. */
  signal: AbortSignal;
}

type Outcome = "changed" | "timeout" | "drain" | "gone";

/**
 * Long poll on the changes feed (contract 10.1). A changes request with `wait` reads the feed; when
 * nothing is new it is held until its team's list changes (a notice from ChangeNotices: a commit
 * through any path, seen by every replica) or its time runs out, the replica drains, or the client
 * leaves. After a wake the feed is read again: a notice only says "look now". Held requests cost
 * no database connection: one LISTEN connection per process serves them all.
 *
 * The watch starts before each reading, so that a commit between the reading and the hold is not
 * missed; each reading skips the token lookup's version shortcut, read before the watch began.
 */
@Injectable()
export class ChangeWaits implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(ChangeWaits.name);
  private readonly notices: ChangeNotices;
  private readonly maxPerHolder: number;
  /** The deadlines (epoch ms) of each holder's held requests. */
  private readonly holders = new Map<string, number[]>();
  /** Ends each held request's wait now, as if its time had run out. */
  private readonly releases = new Set<() => void>();
  private closing = false;
  private stopDrainListener: () => void = () => undefined;
  private readonly wakes: Counter;
  private readonly timeouts: Counter;

  constructor(
    @Inject(DATABASE) database: Database,
    @Inject(APP_CONFIG) config: AppConfig,
    metrics: MetricsService,
    private readonly drain: DrainState,
  ) {
    this.maxPerHolder = config.sync.waitMaxPerToken;
    const url =
      config.databaseListenUrl ?? config.databaseUrl ?? (database.pool.options.connectionString as string | undefined);
    const notices = metrics.counter(
      "list_change_notices_total",
      "Notices of a committed list change received on the LISTEN connection",
    );
    // Without DATABASE_URL the database is the embedded one, which does not carry notices between connections.
    const hint =
      config.databaseUrl === undefined
        ? ""
        : " (when DATABASE_URL names a transaction pooler, set DATABASE_LISTEN_URL to a direct connection to the primary)";
    const listen = url !== undefined && !isEmbeddedDatabaseUrl(url);
    this.notices = new ChangeNotices({
      url: url ?? "",
      listen,
      versions: database.pool,
      onNotice: () => notices.inc(),
      onState: (state, reason) => this.logState(state, reason, hint, listen),
    });
    metrics.gauge(
      "list_changes_held_requests",
      "Changes requests with wait held now, waiting for a change to their team's list",
      () => this.held,
    );
    metrics.gauge(
      "list_change_notices_listening",
      "1 while list changes are told by LISTEN/NOTIFY, 0 while held requests poll the lists' versions every second",
      () => (this.notices.state === "listening" ? 1 : 0),
    );
    // Declarations of one shape, as every feature's, repeated on purpose: one metric per figure.
    this.wakes = metrics.counter(
      "list_changes_wait_wakes_total",
      "Held changes requests woken to read the feed again (a notice, a version change while polling, or the notices' connection lost)",
    );
    this.timeouts = metrics.counter(
      "list_changes_wait_timeouts_total",
      "Held changes requests answered with nothing new because their wait ran out",
    );
  }

  /** Requests held now. */
  get held(): number {
    let held = 0;
    for (const deadlines of this.holders.values()) held += deadlines.length;
    return held;
  }

  /** ChangeNotices.quietSince: no commit to `key` since `since` that was not told. */
  quietSince(key: TeamListKey, since: number): boolean {
    return this.notices.quietSince(key, since);
  }

  /** Whether commits are told by notices now, or held requests poll. */
  get noticesState(): ChangeNoticesState {
    return this.notices.state;
  }

  onModuleInit(): void {
    this.stopDrainListener = this.drain.onStart(() => this.releaseAll());
    this.notices.start();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopDrainListener();
    this.closing = true;
    this.releaseAll();
    await this.notices.stop();
  }

  /**
   * The answer to a changes request with `wait`: the first reading that finds something new, or,
   * when the time runs out (or the replica drains), the last reading, which found nothing new.
   */
  async hold(request: HeldRequest, read: (again: boolean) => Promise<FeedRead>): Promise<PageBody> {
    const deadline = Date.now() + request.seconds * 1000;
    let slot = false;
    try {
      for (let round = 0; ; round++) {
        const watch = this.notices.watch(request.key);
        try {
          await watch.ready;
          const answer = await read(round > 0);
          if (!answer.nothingNew || this.released || request.signal.aborted || Date.now() >= deadline) {
            return answer.body;
          }
          if (!slot) {
            this.takeSlot(request.holder, deadline);
            slot = true;
          }
          const outcome = await this.waitFor(watch, deadline, request.signal);
          if (outcome !== "changed") {
            if (outcome === "timeout") this.timeouts.inc();
            return answer.body;
          }
          this.wakes.inc();
        } finally {
          watch.cancel();
        }
      }
    } finally {
      if (slot) this.freeSlot(request.holder, deadline);
    }
  }

  /** Whether requests are answered at once: the replica drains or the app closes. */
  private get released(): boolean {
    return this.closing || this.drain.draining || this.maxPerHolder === 0;
  }

  private takeSlot(holder: string, deadline: number): void {
    const deadlines = this.holders.get(holder) ?? [];
    if (deadlines.length >= this.maxPerHolder) {
      const soonest = Math.min(...deadlines);
      throw new HeldRequestsLimitedException(Math.max(1, Math.ceil((soonest - Date.now()) / 1000)), this.maxPerHolder);
    }
    deadlines.push(deadline);
    this.holders.set(holder, deadlines);
  }

  private freeSlot(holder: string, deadline: number): void {
    const deadlines = this.holders.get(holder);
    if (deadlines === undefined) return;
    deadlines.splice(deadlines.indexOf(deadline), 1);
    if (deadlines.length === 0) this.holders.delete(holder);
  }

  private waitFor(watch: ListWatch, deadline: number, signal: AbortSignal): Promise<Outcome> {
    return new Promise<Outcome>((resolve) => {
      const finish = (outcome: Outcome) => {
        clearTimeout(timer);
        this.releases.delete(release);
        signal.removeEventListener("abort", gone);
        resolve(outcome);
      };
      const timer = setTimeout(() => finish("timeout"), Math.max(0, deadline - Date.now()));
      const release = () => finish("drain");
      const gone = () => finish("gone");
      this.releases.add(release);
      signal.addEventListener("abort", gone, { once: true });
      void watch.changed.then(() => finish("changed"));
    });
  }

  private releaseAll(): void {
    for (const release of [...this.releases]) release();
  }

  /** Whether the last state logged was polling: listening again is then news, at info. */
  private polling = false;

  private logState(state: ChangeNoticesState, reason: string, hint: string, listen: boolean): void {
    if (state === "listening") {
      // At a start it is the expected state, and a start logs one line of what it runs with.
      const message = "list changes are told by LISTEN/NOTIFY: held changes requests wake at each commit";
      if (this.polling) this.logger.log(message);
      else this.logger.debug(message);
      this.polling = false;
    } else {
      this.polling = true;
      const message = `list changes are not told by LISTEN/NOTIFY (${reason}): held changes requests poll their lists' versions every second${hint}`;
      // The embedded database polls by design (the start's "configured" line says so): not a fault.
      if (listen) this.logger.warn(message);
      else this.logger.debug(message);
    }
  }
}
