import { TIMESTAMP_PATTERN } from "@community/domain";
import type { Response } from "supertest";

export const EVENT_KEYS = [
  "id",
  "slug",
  "duration_seconds",
  "scheduled_at",
  "live_at",
  "completed_at",
  "canceled_at",
  "offer_replay_purchase",
  "name",
  "description",
  "cover_url",
  "price",
  "account",
].sort();

export const GUIDE_KEYS = ["id", "slug", "published_at", "name", "description", "cover_url", "price", "account"].sort();

export const ACCOUNT_KEYS = ["id", "slug", "name", "partner", "profile_image_url", "cover_image_url"].sort();

export const PRICE_KEYS = ["value", "value_in_cents", "currency"].sort();

/** Asserts a timestamp field is null (where allowed) or exactly YYYY-MM-DDTHH:MM:SSZ. */
export function expectTimestamp(value: unknown, nullable: boolean): void {
  if (value === null) {
    expect(nullable).toBe(true);
    return;
  }
  expect(typeof value).toBe("string");
  expect(value).toMatch(TIMESTAMP_PATTERN);
}

/** Asserts the response is an RFC 9457 problem of the given status and type suffix. */
export function expectProblem(response: Response, status: number, typeSuffix: string): void {
  expect(response.status).toBe(status);
  expect(response.headers["content-type"]).toBe("application/problem+json; charset=utf-8");
  expectProblemBody(response.text, status, typeSuffix);
}

/** Asserts a body is an RFC 9457 problem of the given status and type suffix, and returns it parsed. */
export function expectProblemBody(text: string, status: number, typeSuffix: string): Record<string, unknown> {
  const body = JSON.parse(text) as Record<string, unknown>;
  expect(body.type).toMatch(new RegExp(`^https?://.+/problems/${typeSuffix}$`));
  expect(body.status).toBe(status);
  expect(typeof body.title).toBe("string");
  expect(typeof body.detail).toBe("string");
  expect(typeof body.instance).toBe("string");
  return body;
}

/** Parses an RFC 8288 Link header into { rel: target }. */
export function parseLinks(header: string | undefined): Record<string, string> {
  if (!header) return {};
  return Object.fromEntries(
    header.split(",").map((part) => {
      const match = part.trim().match(/^<([^>]*)>\s*;\s*rel="([^"]+)"$/);
      if (!match) throw new Error(`malformed Link part: ${part}`);
      return [match[2], match[1]];
    }),
  );
}
