import type { Database } from "@community/db";
import {
  type AnyTeamList,
  type ChangePage,
  type ChangePosition,
  ChangePositionExpiredError,
  ChangePositionNotReplayedError,
  currentChangePosition,
  readChanges,
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
import type { ChangesQuery } from "./list-query";
import { PageBody } from "./page-cache";
import { SignedTokens, type SyncTokenClaims } from "./signed-tokens";
import { NoCommunityTeamException, SyncExpiredException } from "./team-lists.problems";

/** The database clock and when the caller joined their team, read with every changes request. */
const MEMBERSHIP_SQL = `SELECT team_id, extract(epoch FROM team_since)::float8 AS team_since,
       extract(epoch FROM now())::float8 AS now
  FROM users WHERE id = $1`;

/** Who holds a changes request with `wait`: the access token's digest, and the end of its request. */
export interface WaitingCaller {
  holder: string;
  signal: AbortSignal;
}

interface MembershipRow {
  team_id: string | null;
  team_since: number;
  now: number;
}

/**
 * The changes of the caller's team's list since a sync token (contract 9.3). A token is signed
 * (SignedTokens), names its list and team, and is checked for age against the database clock:
 * issued elsewhere, past the retention or before the caller joined the team, it is expired (410).
 * The replica answers only when it has replayed up to the token's position (readChanges checks it
 * in its own statement); else the primary does, so a lagging replica never leaves a gap.
 *
 * The token lookup (member-by-token.ts) reads when the user joined the team, the database clock
 * and the list's version; the membership statement is read only for callers without them (JWT).
 * A token minted at the end of a round also carries the list's version in its position's snapshot:
 * when the caller's current version is the same, nothing has changed since (see `unchanged`) and
 * the answer needs no statement.
 */
@Injectable()
export class ListChangesService {
  private readonly retentionSeconds: number;
  private readonly polls: Counter<"answer">;

  constructor(
    @Inject(DATABASE) private readonly database: Database,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly tokens: SignedTokens,
    metrics: MetricsService,
    private readonly waits: ChangeWaits,
  ) {
    this.retentionSeconds = config.sync.retentionSeconds;
    this.polls = new Counter({
      name: "list_changes_polls_total",
      help: "Changes requests with a since token, by answer: unchanged (from the list version, no statement) or read (the change log)",
      labelNames: ["answer"] as const,
      registers: [metrics.registry],
    });
  }

  /**
   * With `wait` (and `since`), held by ChangeWaits while nothing is new: each reading leaves out the
   * token lookup's version (read before the hold began), and a reading after a wake reads the
   * membership and the clock again too.
   */
  async find(spec: AnyTeamList, team: CallerTeam, query: ChangesQuery, hold?: WaitingCaller): Promise<PageBody> {
    const { teamId, userId } = team;
    if (hold === undefined || query.wait === 0 || query.since === undefined || teamId === null) {
      return (await this.readOnce(spec, team, query)).body;
    }
    return this.waits.hold(
      { key: { teamId, list: spec.list }, holder: hold.holder, seconds: query.wait, signal: hold.signal },
      (again) => this.readOnce(spec, again ? { userId, teamId } : { ...team, lists: undefined }, query),
    );
  }

  private async readOnce(spec: AnyTeamList, team: CallerTeam, query: ChangesQuery): Promise<FeedRead> {
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
      const position = await currentChangePosition(this.database.statements, { list: spec.list, teamId });
      const { version, ...base } = position;
      const next = this.tokens.syncToken({
        list: spec.list,
        team: teamTag,
        issuedAt: membership.now,
        position: base,
        ...(version === undefined ? {} : { version, positionAt: membership.now }),
      });
      return body([], next, false);
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
    if (this.unchanged(claims, team.lists?.[spec.list]?.version, membership.now)) {
      // The same position, version and position time; issued now, as a round that found nothing.
      this.polls.inc({ answer: "unchanged" });
      return body([], this.tokens.syncToken({ ...claims, issuedAt: membership.now }), false);
    }
    this.polls.inc({ answer: "read" });
    let read: ChangePage<unknown>;
    try {
      read = await this.read(spec, teamId, claims.position as ChangePosition, query.perPage);
    } catch (error) {
      if (error instanceof ChangePositionExpiredError) {
        throw new SyncExpiredException("predates a reset of the list or changes already swept from its log");
      }
      throw error;
    }
    // A token that stops short of the end is as old as the one it came from; one at the end is new.
    const issuedAt = read.hasMore ? claims.issuedAt : membership.now;
    // The position's snapshot was taken after the token lookup, so the lookup's clock is no later.
    const version =
      read.hasMore || read.version === undefined ? {} : { version: read.version, positionAt: membership.now };
    const next = this.tokens.syncToken({ list: spec.list, team: teamTag, issuedAt, position: read.next, ...version });
    return body(read.changes, next, read.hasMore);
  }

  /**
   * Whether nothing that touched the team's list has committed since the token's position, told
   * from versions alone. The token's version was read in the same snapshot S as its position; the
   * caller's was read by the token lookup, on the primary, after the request arrived. Every
   * transaction that touches a team's list takes, at COMMIT and under the lock of the list's stats
   * row, a new version from a sequence (never handed out twice) and writes it into that row; the
   * row lock is released only after the commit is visible. So the stats rows' successive values
   * are distinct and follow commit visibility: a snapshot that sees a version sees every commit
   * that wrote an earlier one. If the lookup read the token's version, it sees the very row value S
   * saw, hence no commit that touched the list and that S did not see: the feed after S is empty
   * as of now, and an empty round with a fresh token is exactly what the database would answer.
   * A lagging replica only ever gave a token an older version (its snapshot with it), which differs
   * from the primary's as soon as a commit is missing: the database then answers.
   * The position is left to the database once it is older than half the retention: the read moves
   * it forward, so a client that polls often never keeps a position older than the log's sweep.
   * Tokens without a version (of a multi-page round, or minted before versions) also go there.
   */
  private unchanged(claims: SyncTokenClaims, current: string | undefined, now: number): boolean {
    if (claims.version === undefined || claims.positionAt === undefined || current === undefined) return false;
    if (claims.positionAt < now - this.retentionSeconds / 2) return false;
    return claims.version === current;
  }

  /** For callers whose authentication did not read it (JWT): one statement. */
  private async membership(userId: string, teamId: string): Promise<{ teamSince: number; now: number }> {
    const { rows } = await this.database.pool.query<MembershipRow>(MEMBERSHIP_SQL, [userId]);
    const row = rows[0];
    // The team moved between the authentication and now: answer as the next request would.
    if (row === undefined || row.team_id !== teamId) throw new SyncExpiredException("was issued for another team");
    return { teamSince: row.team_since, now: row.now };
  }

  /**
   * From the read pool (the replica, which falls back to the primary when unreachable) when it
   * has replayed up to `position`, else from the primary: never a gap. Both as named statements
   * (Database.preparedReads and .statements), planned once per connection.
   */
  private async read(spec: AnyTeamList, teamId: string, position: ChangePosition, limit: number) {
    if (this.database.replica !== undefined) {
      try {
        return await readChanges(this.database.preparedReads, spec, teamId, position, limit);
      } catch (error) {
        if (!(error instanceof ChangePositionNotReplayedError)) throw error;
      }
    }
    return readChanges(this.database.statements, spec, teamId, position, limit);
  }
}

function body(changes: ChangesEnvelope<unknown>["changes"], next: string, hasMore: boolean): FeedRead {
  const value: ChangesEnvelope<unknown> = { changes, meta: { sync: { next, has_more: hasMore } } };
  return { body: PageBody.of(value), nothingNew: changes.length === 0 && !hasMore };
}
