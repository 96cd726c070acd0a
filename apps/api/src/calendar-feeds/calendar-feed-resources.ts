import type { CalendarFeedResource, CalendarFeedWithUrl } from "@community/domain";
import type { CalendarFeedRow } from "./calendar-feeds.repository";

export function calendarFeedResource(row: CalendarFeedRow): CalendarFeedResource {
  return {
    id: row.id,
    name: row.name,
    created_at: row.createdAt.toISOString(),
    last_fetched_at: row.lastFetchedAt === null ? null : row.lastFetchedAt.toISOString(),
  };
}

/** The feed with its secret URL (at creation and rotation only), under the public base URL. */
export function calendarFeedWithUrl(row: CalendarFeedRow, publicUrl: string, secret: string): CalendarFeedWithUrl {
  const url = `${publicUrl}/v1/calendar-feeds/${secret}.ics`;
  return { ...calendarFeedResource(row), url, webcal_url: url.replace(/^https?:/, "webcal:") };
}
