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
import { InvalidQueryException } from "../common/problems";
import { APP_CONFIG, type AppConfig } from "../config/config";
import { DATABASE } from "../database/database.tokens";
import type { CallerTeam } from "./current-team.decorator";
import type { ChangesQuery } from "./list-query";
import { PageBody } from "./page-cache";
import { SignedTokens } from "./signed-tokens";
import { NoCommunityTeamException, SyncExpiredException } from "./team-lists.problems";

/** The database clock and when the caller joined their team, read with every changes request. */
const MEMBERSHIP_SQL = `SELECT team_id, extract(epoch FROM team_since)::float8 AS team_since,
       extract(epoch FROM now())::float8 AS now
  FROM users WHERE id = $1`;

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
 */
@Injectable()
export class ListChangesService {
  private readonly retentionSeconds: number;

  constructor(
    @Inject(DATABASE) private readonly database: Database,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly tokens: SignedTokens,
  ) {
    this.retentionSeconds = config.sync.retentionSeconds;
  }

  async find(spec: AnyTeamList, team: CallerTeam, query: ChangesQuery): Promise<PageBody> {
    const { teamId } = team;
    if (teamId === null) throw new NoCommunityTeamException();
    const membership = await this.membership(team.userId);
    // The team moved between the token lookup and now: answer as the next request would.
    if (membership.team_id !== teamId) throw new SyncExpiredException("was issued for another team");
    const teamTag = this.tokens.teamTag(teamId);
    if (query.since === undefined) {
      const position = await currentChangePosition(this.database.pool);
      const next = this.tokens.syncToken({ list: spec.list, team: teamTag, issuedAt: membership.now, position });
      return body([], next, false);
    }
    const claims = this.tokens.openSyncToken(query.since);
    if (claims === undefined) {
      throw new InvalidQueryException([
        { parameter: "since", message: "is not a sync token of this service (altered, truncated or forged)" },
      ]);
    }
    if (claims.list !== spec.list || claims.team !== teamTag) {
      throw new SyncExpiredException("was issued for another team or list");
    }
    if (claims.issuedAt < membership.now - this.retentionSeconds) {
      throw new SyncExpiredException("is older than the change log's retention");
    }
    if (claims.issuedAt < membership.team_since) {
      throw new SyncExpiredException("was issued before the caller joined this team");
    }
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
    const next = this.tokens.syncToken({ list: spec.list, team: teamTag, issuedAt, position: read.next });
    return body(read.changes, next, read.hasMore);
  }

  private async membership(userId: string): Promise<MembershipRow> {
    const { rows } = await this.database.pool.query<MembershipRow>(MEMBERSHIP_SQL, [userId]);
    const row = rows[0];
    if (row === undefined) throw new SyncExpiredException("was issued for another team");
    return row;
  }

  /**
   * From the read pool (the replica, which falls back to the primary when unreachable) when it
   * has replayed up to `position`, else from the primary: never a gap.
   */
  private async read(spec: AnyTeamList, teamId: string, position: ChangePosition, limit: number) {
    if (this.database.replica !== undefined) {
      try {
        return await readChanges(this.database.reads, spec, teamId, position, limit);
      } catch (error) {
        if (!(error instanceof ChangePositionNotReplayedError)) throw error;
      }
    }
    return readChanges(this.database.pool, spec, teamId, position, limit);
  }
}

function body(changes: ChangesEnvelope<unknown>["changes"], next: string, hasMore: boolean): PageBody {
  const value: ChangesEnvelope<unknown> = { changes, meta: { sync: { next, has_more: hasMore } } };
  return PageBody.of(value);
}
