import ical, { escape as escapeText, ICalCalendarMethod, ICalEventStatus } from "ical-generator";
import type { FeedEventRow } from "./feed-events";

/** How often calendar applications are asked to fetch again (REFRESH-INTERVAL, X-PUBLISHED-TTL). */
export const FEED_REFRESH_SECONDS = 3_600;

/**
 * The feed's iCalendar text (RFC 5545, contract 11.2), written by ical-generator: escaping of
 * TEXT values, CRLF line ends and folding at 75 octets without splitting a UTF-8 character are
 * the library's (docs/decisions.md, "Calendar feeds are written by ical-generator"). Only what
 * the contract lists reaches it: the team's name, and per event its id, name, description,
 * cover, start, duration, whether it is canceled, and its calendar sequence and stamp.
 */
export function calendarText(calendar: { teamName: string; uidHost: string; events: readonly FeedEventRow[] }): string {
  // NAME and X-WR-CALNAME are written as given (the library escapes event texts, not this one).
  const name = escapeText(calendar.teamName, false);
  const feed = ical({
    name,
    prodId: { company: "community-team", product: "calendar-feeds", language: "EN" },
    scale: "GREGORIAN",
    method: ICalCalendarMethod.PUBLISH,
    ttl: FEED_REFRESH_SECONDS,
  });
  for (const row of calendar.events) {
    const event = feed.createEvent({
      id: `${row.id}@${calendar.uidHost}`,
      sequence: row.calendar_sequence,
      stamp: row.calendar_stamp,
      start: row.scheduled_at,
      end: new Date(row.scheduled_at.getTime() + row.duration_seconds * 1000),
      summary: row.name,
      description: row.description,
      status: row.canceled ? ICalEventStatus.CANCELLED : ICalEventStatus.CONFIRMED,
    });
    // RFC 7986's IMAGE, which the library has no setter for: its custom properties write the key
    // as given and the value escaped as TEXT, so the URL's commas, semicolons and backslashes are
    // percent-encoded first (where an escape would not be read back as part of a URI).
    if (row.cover_url !== null) event.x([["IMAGE;VALUE=URI;DISPLAY=BADGE", uriValue(row.cover_url)]]);
  }
  // The library ends the last line without its CRLF.
  return `${feed.toString()}\r\n`;
}

function uriValue(url: string): string {
  return url.replace(/[,;\\]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);
}
