import { z } from "zod";
import { wireRegistry } from "./wire-schemas";

/**
 * The calendar feeds' wire types (contract 11), described once with zod: the api's responses and
 * the OpenAPI document's schemas (registered in wireRegistry).
 */
const instant = z.string().meta({
  format: "date-time",
  description: "RFC 3339 in UTC with milliseconds (toISOString).",
  examples: ["2026-03-01T18:30:00.000Z"],
});

/** A feed id: "calf_" and 22 base64url characters (16 random bytes). */
export const CALENDAR_FEED_ID = /^calf_[A-Za-z0-9_-]{22}$/;
/** A feed secret: "cal_" and the base64url of 32 random bytes (43 characters). */
export const CALENDAR_FEED_SECRET = /^cal_[A-Za-z0-9_-]{43}$/;
/** Longest name a feed may carry. */
export const CALENDAR_FEED_NAME_MAX = 100;

export const calendarFeedSchema = z
  .strictObject({
    id: z
      .string()
      .regex(CALENDAR_FEED_ID)
      .meta({ examples: ["calf_2sT9bW0mX1qfVY7g3kPz4A"] }),
    name: z
      .string()
      .min(1)
      .max(CALENDAR_FEED_NAME_MAX)
      .nullable()
      .meta({ description: "The name given at creation; null when none was." }),
    created_at: instant,
    last_fetched_at: instant.nullable().meta({
      description: "When the feed was last fetched, updated at most every 5 minutes; null before the first fetch.",
    }),
  })
  .register(wireRegistry, { id: "CalendarFeed", description: "A calendar feed (never its secret)." });

export const calendarFeedWithUrlSchema = calendarFeedSchema
  .extend({
    url: z.string().meta({
      format: "uri",
      description: "The feed: <public base URL>/v1/calendar-feeds/<secret>.ics. Shown at creation and rotation only.",
      examples: ["https://api.example.com/v1/calendar-feeds/cal_Q2hhbmdlIG1lIHRvIGEgcmVhbCBzZWNyZXQgcGxlYXNlIQ.ics"],
    }),
    webcal_url: z.string().meta({
      description: "The same URL with the webcal:// scheme, which calendar applications open as a subscription.",
      examples: ["webcal://api.example.com/v1/calendar-feeds/cal_Q2hhbmdlIG1lIHRvIGEgcmVhbCBzZWNyZXQgcGxlYXNlIQ.ics"],
    }),
  })
  .register(wireRegistry, {
    id: "CalendarFeedWithUrl",
    description:
      "A feed just created or rotated, with its secret URL (the secret is `cal_` and the base64url of 32 random bytes).",
  });

export const calendarFeedListSchema = z
  .strictObject({ calendar_feeds: z.array(calendarFeedSchema) })
  .register(wireRegistry, { id: "CalendarFeedList", description: "The caller's feeds, oldest first." });

export type CalendarFeedResource = z.infer<typeof calendarFeedSchema>;
export type CalendarFeedWithUrl = z.infer<typeof calendarFeedWithUrlSchema>;
export type CalendarFeedList = z.infer<typeof calendarFeedListSchema>;
