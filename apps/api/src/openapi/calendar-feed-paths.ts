import { CALENDAR_SCOPE } from "@community/domain";
import type { ProblemName } from "./problem-catalogue";
import { problemRefs } from "./problem-responses";
import { type Json, jsonContent, listOperation, okJson, operationBuilder, pathParameter } from "./resource-operations";

const PATH = "/v1/me/community/team/calendar-feeds";
const TAG = "calendar feeds";
const tags = [TAG];

const idParameter = pathParameter("id", "The feed's id. Another user's is answered as unknown (404).");

const operation = operationBuilder(TAG, CALENDAR_SCOPE);

const FEED_HEADERS: Record<string, Json> = {
  ETag: {
    description: "A strong tag per content coding; it changes whenever the calendar would.",
    schema: { type: "string" },
  },
  "Cache-Control": { description: "`private`.", schema: { type: "string", const: "private" } },
  Vary: { description: "`Accept-Encoding`.", schema: { type: "string" } },
  "Referrer-Policy": { description: "`no-referrer`.", schema: { type: "string" } },
  "X-Robots-Tag": { description: "`noindex`.", schema: { type: "string", const: "noindex" } },
};

/** The feed (GET and HEAD): problems it may answer, never an authentication challenge. */
const PROBLEMS_OF_THE_FEED: ProblemName[] = [
  "NotFound",
  "RequestTimeout",
  "RequestHeaderTooLarge",
  "RateLimited",
  "Internal",
  "Unavailable",
];

function feedOperation(method: "get" | "head"): Json {
  return {
    operationId: method === "get" ? "getCalendarFeedFile" : "headCalendarFeedFile",
    tags,
    // The secret in the path is the credential: calendar applications send no Authorization header.
    security: [],
    summary: method === "get" ? "The team's events as an iCalendar feed" : "Headers of the iCalendar feed",
    description:
      "An RFC 5545 calendar (VERSION 2.0, CALSCALE GREGORIAN, METHOD PUBLISH, the team's name in NAME and X-WR-CALNAME, REFRESH-INTERVAL and X-PUBLISHED-TTL of PT1H) with one VEVENT per event of the owner's team scheduled at or after 90 days before the start (UTC) of the day, in scheduled_at order, at most 5,000: UID `<event id>@<host>`, DTSTAMP, DTSTART and DTEND in UTC, SUMMARY, DESCRIPTION (when set), STATUS (CANCELLED or CONFIRMED), SEQUENCE (grows whenever the VEVENT changes) and IMAGE (when the event has a cover). An unknown, deleted or rotated secret, or one whose owner left the team, is the same 404; failed guesses spend the address's failed-authentication budget (AUTH_FAILURE_LIMIT). Fetches are limited per feed (CALENDAR_FEED_RATE_LIMIT_MAX per CALENDAR_FEED_RATE_LIMIT_WINDOW_SECONDS) and per address (RATE_LIMIT_MAX).",
    parameters: [
      {
        name: "secret",
        in: "path",
        required: true,
        description: "The feed's secret: `cal_` and the base64url of 32 random bytes.",
        schema: { type: "string", pattern: "^cal_[A-Za-z0-9_-]{43}$" },
      },
      { $ref: "#/components/parameters/If-None-Match" },
      { $ref: "#/components/parameters/Accept-Encoding" },
    ],
    responses: {
      "200": {
        description: method === "get" ? "The calendar." : "The headers GET would answer with, no body.",
        headers: {
          ...FEED_HEADERS,
          "Content-Encoding": { $ref: "#/components/headers/Content-Encoding" },
        },
        ...(method === "get"
          ? { content: { "text/calendar": { schema: { type: "string", pattern: "^BEGIN:VCALENDAR\r\n" } } } }
          : {}),
      },
      "304": { description: "If-None-Match names the current ETag. No body.", headers: FEED_HEADERS },
      ...problemRefs(PROBLEMS_OF_THE_FEED),
    },
  };
}

/** The calendar feeds' paths (contract 11): their management, and the feed itself. */
export function calendarFeedPaths(): Record<string, Json> {
  return {
    [PATH]: {
      post: operation(
        {
          operationId: "createCalendarFeed",
          summary: "Create a secret URL that serves the team's events as a calendar",
          description:
            "The answer carries the feed's `url` and `webcal_url`, shown at creation and rotation only (the secret is stored only as a hash). At most CALENDAR_FEEDS_MAX (10) feeds per user. The body may be empty.",
          requestBody: {
            required: false,
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  properties: { name: { type: "string", minLength: 1, maxLength: 100 } },
                },
                example: { name: "My phone" },
              },
            },
          },
          responses: {
            "201": {
              description: "Created. Location names the feed.",
              headers: { Location: { description: "The feed's path.", schema: { type: "string" } } },
              content: jsonContent("CalendarFeedWithUrl"),
            },
          },
        },
        ["InvalidBody", "NoCommunityTeam", "CalendarFeedLimit", "UnsupportedMediaType"],
      ),
      get: operation(
        listOperation("listCalendarFeeds", "The caller's calendar feeds", {
          description: "The feeds.",
          schema: "CalendarFeedList",
        }),
        [],
      ),
    },
    [`${PATH}/{id}`]: {
      parameters: [idParameter],
      get: operation(
        {
          operationId: "getCalendarFeed",
          summary: "One calendar feed",
          description: "Never its secret.",
          responses: okJson("The feed.", "CalendarFeed"),
        },
        ["CalendarFeedNotFound"],
      ),
      delete: operation(
        {
          operationId: "deleteCalendarFeed",
          summary: "Delete a calendar feed",
          description: "Its URL answers 404 at once.",
          responses: { "204": { description: "Deleted." } },
        },
        ["CalendarFeedNotFound"],
      ),
    },
    [`${PATH}/{id}/rotate`]: {
      parameters: [idParameter],
      post: operation(
        {
          operationId: "rotateCalendarFeed",
          summary: "A new secret URL for a feed",
          description: "The old URL answers 404 at once.",
          responses: {
            "200": { description: "The feed with its new URL.", content: jsonContent("CalendarFeedWithUrl") },
          },
        },
        ["CalendarFeedNotFound"],
      ),
    },
    "/v1/calendar-feeds/{secret}.ics": { get: feedOperation("get"), head: feedOperation("head") },
  };
}
