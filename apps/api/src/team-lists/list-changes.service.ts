import { type Database, prismaStatements } from "@community/db";
import {
  type ChangePage,
  type ChangePosition,
  ChangePositionExpiredError,
  ChangePositionUnknownError,
  currentChangePosition,
  InvalidChangePositionError,
  readChanges,
  type TeamList,
} from "@community/db/lists";
import type { ChangesEnvelope } from "@community/domain";
import { Inject, Injectable } from "@nestjs/common";
import { Counter } from "prom-client";
import { InvalidQueryException } from "../common/problems";
import { APP_CONFIG, type AppConfig } from "../config/config";
import { DATABASE } from "../database/database.tokens";
import { MetricsService } from "../metrics/metrics.service";
import { ChangeWaits, type FeedRead } from "./change-waits";
import type { CallerTeam } from "./current-team.decorator";
import { FeedFlights } from "./feed-flights";
import type { ChangesQuery } from "./list-query";
import { MembershipReads } from "./membership-reads";
import { PageBody } from "./page-cache";
import { SignedTokens } from "./signed-tokens";
import { NoCommunityTeamException, SyncExpiredException } from "./team-lists.problems";

/** Who holds a changes request with `wait`: the access token's digest, and the end of its request. */
export interface WaitingCaller {
  holder: string;
  signal: AbortSignal;
}

/**
 * The changes of the caller's team's list since a sync token (contract 9.3). A token is signed
 * (SignedTokens), names its list and team, and is checked for age against the database clock:
 * issued elsewhere, past the retention or before the caller joined the team, it is expired (410).
 * Its position is a state of the list (version and stamp, docs/database.md "Positions"): one that
 * this database's history does not hold (a restore to an earlier point, a lossy failover, a
 * state swept from the log) is expired too, never read with a gap. The replica answers only when
 * it holds the position's states; else the primary does, and decides.
 *
 * The token lookup (member-by-token.ts) reads when the user joined the team, the database clock
 * and the list's state; the membership statement is read only for callers without them (JWT).
 * When the list's state is the token's, nothing has changed since and the answer needs no
 * statement; a token taken without `since` is that state too.
 */
@Injectable()
export class ListChangesService {
  private readonly retentionSeconds: number;
  private readonly polls: Counter<"answer">;
  private readonly feedReads: Counter<"shared">;
  private readonly memberships: MembershipReads;
  /** The held requests' readings of the feed, shared by position (FeedFlights). */
  private readonly flights = new FeedFlights();

  constructor(
    @Inject(DATABASE) private readonly database: Database,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly tokens: SignedTokens,
    metrics: MetricsService,
    private readonly waits: ChangeWaits,
  ) {
    this.retentionSeconds = config.sync.retentionSeconds;
    this.polls = metrics.counter(
      "list_changes_polls_total",
      "Changes requests with a since token, by answer: unchanged (from the list version, no statement) or read (the change log)",
      ["answer"] as const,
    );
    this.feedReads = metrics.counter(
      "list_changes_feed_reads_total",
      "Readings of the change log for changes requests: shared=false ran a statement, shared=true joined a held request's reading at the same position",
      ["shared"] as const,
    );
    this.memberships = new MembershipReads(database.pool);
  }

  /**
   * With `wait` (and `since`), held by ChangeWaits while nothing is new: the first reading takes
   * the token lookup's version only when no commit can have come between that lookup and the
   * watch (else it reads the feed), and a reading after a wake reads the feed, the membership and
   * the clock again. A commit wakes every held request of its list at once: their memberships are
   * read in one statement (MembershipReads), and the requests at the same position share one
   * reading of the feed, from the primary (`held`).
   */
  async find<Row extends { id: string }, Item>(
    spec: TeamList<Row, Item>,
    team: CallerTeam,
    query: ChangesQuery,
    hold?: WaitingCaller,
  ): Promise<PageBody> {
    const { teamId, userId } = team;
    if (hold === undefined || query.wait === 0 || query.since === undefined || teamId === null) {
      return (await this.readOnce(spec, team, query)).body;
    }
    const key = { teamId, list: spec.list };
    return this.waits.hold({ key, holder: hold.holder, seconds: query.wait, signal: hold.signal }, (again) => {
      if (again) return this.readOnce(spec, { userId, teamId }, query, true);
      // The first reading, made once the request watches its list: from the token lookup's
      // version when no commit to the list can have slipped between that lookup and the watch
      // (notices heard throughout, none for this list since: ChangeNotices.quietSince), else from
      // the database.
      const lookupCurrent = team.listsReadAt !== undefined && this.waits.quietSince(key, team.listsReadAt);
      return this.readOnce(spec, lookupCurrent ? team : { ...team, lists: undefined }, query, true);
    });
  }

  private async readOnce<Row extends { id: string }, Item>(
    spec: TeamList<Row, Item>,
    team: CallerTeam,
    query: ChangesQuery,
    held = false,
  ): Promise<FeedRead> {
    const { teamId } = team;
    // A forged token is a bad query (400), which comes before a missing team (404).
    const claims = query.since === undefined ? undefined : this.tokens.openSyncToken(query.since);
    if (query.since !== undefined && claims === undefined) {
      throw new InvalidQueryException([
        { parameter: "since", message: "is not a sync token of this service (altered, truncated or forged)" },
      ]);
    }
    if (teamId === null) throw new NoCommunityTeamException();
    const membership = team.membership ?? (await this.membership(team.userId, teamId));
    const teamTag = this.tokens.teamTag(teamId);
    if (claims === undefined) {
      const state = team.lists?.[spec.list];
      const position =
        state === undefined
          ? await currentChangePosition(prismaStatements(this.database.prisma), { list: spec.list, teamId })
          : { base: state?.version ?? "0" };
      return body<Item>(
        [],
        this.tokens.syncToken({ list: spec.list, team: teamTag, issuedAt: membership.now, position }),
        false,
      );
    }
    if (claims.list !== spec.list || claims.team !== teamTag) {
      throw new SyncExpiredException("was issued for another team or list");
    }
    if (claims.issuedAt < membership.now - this.retentionSeconds) {
      throw new SyncExpiredException("is older than the change log's retention");
    }
    if (claims.issuedAt < membership.teamSince) {
      throw new SyncExpiredException("was issued before the caller joined this team");
    }
    const position = claims.position as ChangePosition;
    if (this.unchanged(position, team.lists?.[spec.list])) {
      // The same position, issued now, as a round that found nothing.
      this.polls.inc({ answer: "unchanged" });
      return body<Item>([], this.tokens.syncToken({ ...claims, issuedAt: membership.now }), false);
    }
    this.polls.inc({ answer: "read" });
    let read: ChangePage<Item>;
    try {
      read = held
        ? await this.sharedRead(spec, teamId, position, query.perPage)
        : await this.read(spec, teamId, position, query.perPage);
    } catch (error) {
      if (error instanceof ChangePositionExpiredError) {
        throw new SyncExpiredException("predates a reset of the list");
      }
      if (error instanceof ChangePositionUnknownError) {
        throw new SyncExpiredException(
          "names a state of the list that this database does not hold (restored, failed over, or past the change log's retention)",
        );
      }
      // Signed by this service, but in the form of an earlier release (a snapshot position).
      if (error instanceof InvalidChangePositionError) {
        throw new SyncExpiredException("was issued by an earlier release of the service");
      }
      throw error;
    }
    // A token that stops short of the end is as old as the one it came from; one at the end is new.
    const issuedAt = read.hasMore ? claims.issuedAt : membership.now;
    const next = this.tokens.syncToken({ list: spec.list, team: teamTag, issuedAt, position: read.next });
    return body(read.changes, next, read.hasMore);
  }

  /**
   * Whether nothing that touched the team's list has committed since the token's position, told
   * from the list's state alone. Every transaction that touches a team's list takes, at COMMIT and
   * under the lock of the list's stats row, a new version and a new random stamp; the row lock is
   * released only after the commit is visible. So a position at the end of a round, equal to the
   * state the token lookup read (on the primary, after the request arrived), means no commit that
   * touched the list since: the feed after it is empty as of now. A state of another history
   * (the same version, restored or failed over) has another stamp and is not equal: the database
   * then answers, and refuses it. A lagging replica's state never reaches the lookup (it reads the
   * primary).
   */
  private unchanged(position: ChangePosition, current: { version: string } | null | undefined): boolean {
    if (current === undefined || typeof position !== "object" || position === null) return false;
    return position.round === undefined && position.base === (current?.version ?? "0");
  }

  /** For callers whose authentication did not read it (JWT) and held requests after a wake: one statement per turn. */
  private async membership(userId: string, teamId: string): Promise<{ teamSince: number; now: number }> {
    const row = await this.memberships.of(userId);
    // The team moved between the authentication and now: answer as the next request would.
    if (row === undefined || row.team_id !== teamId) throw new SyncExpiredException("was issued for another team");
    return { teamSince: row.team_since, now: row.now };
  }

  /**
   * From the read pool (the replica, which falls back to the primary when unreachable) when it
   * holds the position's states, else from the primary, which decides: never a gap. Both as named
   * statements (Prisma's raw queries on Database.prismaReads and .prisma), planned once per connection.
   */
  private async read<Row extends { id: string }, Item>(
    spec: TeamList<Row, Item>,
    teamId: string,
    position: ChangePosition,
    limit: number,
  ): Promise<ChangePage<Item>> {
    if (this.database.replica !== undefined) {
      try {
        this.feedReads.inc({ shared: "false" });
        return await readChanges(prismaStatements(this.database.prismaReads), spec, teamId, position, limit);
      } catch (error) {
        if (!(error instanceof ChangePositionUnknownError)) throw error;
      }
    }
    this.feedReads.inc({ shared: "false" });
    return readChanges(prismaStatements(this.database.prisma), spec, teamId, position, limit);
  }

  /**
   * A held request's reading: from the primary, since a notice may come before the replica has
   * replayed its commit (a reading there would find nothing and hold again, past the change); and
   * shared with the held requests at the same position whose watch began before the reading did,
   * or while no commit to the list has been told since it began (ChangeNotices.quietSince): a
   * commit that the shared reading missed then fires their watch, and they read again.
   */
  private sharedRead<Row extends { id: string }, Item>(
    spec: TeamList<Row, Item>,
    teamId: string,
    position: ChangePosition,
    limit: number,
  ): Promise<ChangePage<Item>> {
    const key = { teamId, list: spec.list };
    const at = position.after;
    const id = [teamId, spec.list, position.base, position.round ?? "", at?.version ?? "", at?.id ?? "", limit].join(
      "\n",
    );
    return this.flights.run(
      id,
      (startedAt) => this.waits.quietSince(key, startedAt),
      () => readChanges(prismaStatements(this.database.prisma), spec, teamId, position, limit),
      (joined) => this.feedReads.inc({ shared: String(joined) }),
    );
  }
}

function body<Item>(changes: ChangesEnvelope<Item>["changes"], next: string, hasMore: boolean): FeedRead {
  const value: ChangesEnvelope<Item> = { changes, meta: { sync: { next, has_more: hasMore } } };
  return { body: PageBody.of(value), nothingNew: changes.length === 0 && !hasMore };
}
