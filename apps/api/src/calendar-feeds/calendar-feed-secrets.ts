import { randomBytes } from "node:crypto";
import { hashToken } from "@community/db";
import { CALENDAR_FEED_SECRET } from "@community/domain";

/** A new feed id: "calf_" and 22 base64url characters (16 random bytes). */
export function newCalendarFeedId(): string {
  return `calf_${randomBytes(16).toString("base64url")}`;
}

/** A new feed secret and the only form stored of it: "cal_" and the base64url of 32 random bytes, and its SHA-256. */
export function newCalendarFeedSecret(): { secret: string; hash: string } {
  const secret = `cal_${randomBytes(32).toString("base64url")}`;
  return { secret, hash: hashToken(secret) };
}

/** The secret a feed path's last segment (`<secret>.ics`) names, or undefined when it cannot name one. */
export function secretOfFeedFile(file: string): string | undefined {
  if (!file.endsWith(".ics")) return undefined;
  const secret = file.slice(0, -".ics".length);
  return CALENDAR_FEED_SECRET.test(secret) ? secret : undefined;
}
