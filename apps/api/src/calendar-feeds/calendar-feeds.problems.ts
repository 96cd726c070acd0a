import { ProblemException, problemTypes } from "../common/problems";

/** The calendar feeds' own problem types (contract 11); the rest are shared (not-found, rate-limited, …). */
// Entries of one shape in every *.problems.ts, repeated on purpose: data, not logic.
export const CALENDAR_FEED_PROBLEMS = problemTypes({
  CalendarFeedNotFound: {
    type: "calendar-feed-not-found",
    status: 404,
    title: "Calendar feed not found",
    docs: "No calendar feed with this id belongs to the caller.",
    example: { detail: "No calendar feed with this id" },
  },
  CalendarFeedLimit: {
    type: "calendar-feed-limit",
    status: 409,
    title: "Too many calendar feeds",
    docs: "The caller already has the most calendar feeds allowed (CALENDAR_FEEDS_MAX, 10 by default).",
    example: { detail: "At most 10 calendar feeds per user" },
  },
});

export class CalendarFeedNotFoundException extends ProblemException {
  constructor() {
    super(CALENDAR_FEED_PROBLEMS.CalendarFeedNotFound, "No calendar feed with this id");
  }
}

export class CalendarFeedLimitException extends ProblemException {
  constructor(max: number) {
    super(CALENDAR_FEED_PROBLEMS.CalendarFeedLimit, `At most ${max} calendar feeds per user`);
  }
}
