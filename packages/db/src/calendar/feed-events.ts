import type { Queryable } from "../lists/team-list";

/** Most events a feed carries (contract 11.2): later ones are left out. */
export const FEED_EVENTS_MAX = 5_000;
/** A feed starts this many days before the start (UTC) of the day it is fetched. */
export const FEED_WINDOW_DAYS = 90;

/**
 * $1 team id, $2 the window's start: the team's events scheduled at or after it, in scheduled_at
 * order, at most FEED_EVENTS_MAX, with only the columns a VEVENT shows. One statement; a backward
 * range scan of events_team_list_idx (team_id, scheduled_at DESC, id), hence `id DESC` on ties.
 */
export const FEED_EVENTS_SQL = `SELECT e.id, e.name, e.description, e.cover_url, e.duration_seconds,
       e.scheduled_at, (e.canceled_at IS NOT NULL) AS canceled, e.calendar_sequence, e.calendar_stamp
  FROM events e
 WHERE e.team_id = $1 AND e.scheduled_at >= $2
 ORDER BY e.scheduled_at, e.id DESC
 LIMIT ${FEED_EVENTS_MAX}`;

/** The row FEED_EVENTS_SQL selects. */
export interface FeedEventRow {
  id: string;
  name: string;
  description: string | null;
  cover_url: string | null;
  duration_seconds: number;
  scheduled_at: Date;
  canceled: boolean;
  calendar_sequence: number;
  calendar_stamp: Date;
}

/** The first instant a feed fetched at `now` shows: the start of that day (UTC) less FEED_WINDOW_DAYS. */
export function feedWindowStart(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - FEED_WINDOW_DAYS * 86_400_000);
}

/** The events a feed of `teamId` shows from `from` (feedWindowStart). */
export async function readFeedEvents(db: Queryable, teamId: string, from: Date): Promise<FeedEventRow[]> {
  const { rows } = await db.query<FeedEventRow>(FEED_EVENTS_SQL, [teamId, from]);
  return rows;
}
