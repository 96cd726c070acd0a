import { listStateSql } from "../lists/changes";
import type { Queryable } from "../lists/team-list";

/** `last_fetched_at` is written at most this often (contract 11.1). */
export const LAST_FETCHED_RESOLUTION_SECONDS = 300;

/**
 * $1 the secret's SHA-256 (hex): the live feed it opens, its team's name and the state
 * ("<version>.<stamp>") of the team's events list, which is all a revalidation needs. A feed is
 * live while its user is still in the feed's team and has been since the feed was made
 * (users.team_since moves whenever team_id does), so leaving and coming back never revives it.
 * The same statement writes last_fetched_at when it is older than 5 minutes (or null), so a fetch
 * costs this one statement, a write at most every 5 minutes included.
 */
export const FEED_BY_SECRET_SQL = `WITH feed AS (
  SELECT f.id, f.team_id, tm.name AS team_name, f.last_fetched_at, ${listStateSql("s")} AS events_state
    FROM calendar_feeds f
    JOIN users u ON u.id = f.user_id AND u.team_id = f.team_id AND u.team_since <= f.created_at
    JOIN teams tm ON tm.id = f.team_id
    LEFT JOIN team_list_stats s ON s.team_id = f.team_id AND s.list = 'events'
   WHERE f.secret_hash = $1
), touched AS (
  UPDATE calendar_feeds c SET last_fetched_at = now()
    FROM feed
   WHERE c.id = feed.id
     AND (feed.last_fetched_at IS NULL OR feed.last_fetched_at < now() - make_interval(secs => ${LAST_FETCHED_RESOLUTION_SECONDS}))
  RETURNING c.id
)
SELECT id, team_id, team_name, events_state FROM feed`;

/** The row FEED_BY_SECRET_SQL selects. */
interface FeedBySecretRow {
  id: string;
  team_id: string;
  team_name: string;
  events_state: string | null;
}

/** A live feed: what serving it needs. */
export interface LiveCalendarFeed {
  id: string;
  teamId: string;
  teamName: string;
  /** The team's events list state, `<version>.<stamp>` ("0" before its first statistics). */
  eventsState: string;
}

/** The live feed whose secret has this digest, or undefined (unknown, deleted, rotated, or its user left). */
export async function findFeedBySecretHash(db: Queryable, secretHash: string): Promise<LiveCalendarFeed | undefined> {
  const { rows } = await db.query<FeedBySecretRow>(FEED_BY_SECRET_SQL, [secretHash]);
  const row = rows[0];
  if (row === undefined) return undefined;
  return { id: row.id, teamId: row.team_id, teamName: row.team_name, eventsState: row.events_state ?? "0" };
}
