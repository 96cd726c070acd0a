import type {
  Account,
  CalendarFeed,
  CalendarFeedWithUrl,
  Change,
  CursorPagination,
  Event,
  Guide,
  Pagination,
  ParameterError,
  Price,
  Problem,
} from "./wire.ts";

/**
 * A hand-written check of what the client parses: a few combinators instead of a schema library,
 * so that the published client has no runtime dependency. Members the client does not know are
 * allowed (the contract may grow); a known member of the wrong type is not.
 */
export type Check<T> = (value: unknown, path: string) => T;

export class ShapeError extends Error {
  constructor(
    readonly path: string,
    expected: string,
    value: unknown,
  ) {
    super(`${path} must be ${expected}, got ${describe(value)}`);
    this.name = "ShapeError";
  }
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return `a string of ${value.length} characters`;
  return typeof value === "object" ? "an object" : `${typeof value} ${String(value)}`;
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

const string: Check<string> = (value, path) => {
  if (typeof value !== "string") throw new ShapeError(path, "a string", value);
  return value;
};
const timestamp: Check<string> = (value, path) => {
  if (typeof value !== "string" || !TIMESTAMP.test(value)) {
    throw new ShapeError(path, "a timestamp YYYY-MM-DDTHH:MM:SSZ", value);
  }
  return value;
};
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{3})?Z$/;
const instant: Check<string> = (value, path) => {
  if (typeof value !== "string" || !INSTANT.test(value)) throw new ShapeError(path, "an RFC 3339 UTC instant", value);
  return value;
};
const number: Check<number> = (value, path) => {
  if (typeof value !== "number" || !Number.isFinite(value)) throw new ShapeError(path, "a number", value);
  return value;
};
const integer: Check<number> = (value, path) => {
  if (!Number.isSafeInteger(value)) throw new ShapeError(path, "an integer", value);
  return value as number;
};
const boolean: Check<boolean> = (value, path) => {
  if (typeof value !== "boolean") throw new ShapeError(path, "a boolean", value);
  return value;
};
const nullable =
  <T>(check: Check<T>): Check<T | null> =>
  (value, path) =>
    value === null ? null : check(value, path);
const optional =
  <T>(check: Check<T>): Check<T | undefined> =>
  (value, path) =>
    value === undefined ? undefined : check(value, path);

export const arrayOf =
  <T>(check: Check<T>): Check<T[]> =>
  (value, path) => {
    if (!Array.isArray(value)) throw new ShapeError(path, "an array", value);
    return value.map((item, i) => check(item, `${path}[${i}]`));
  };

type Shape<T> = { [K in keyof T]: Check<T[K]> };

/** An object with at least the members of `shape`; other members are kept as they are. */
export const object =
  <T>(shape: Shape<T>): Check<T> =>
  (value, path) => {
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw new ShapeError(path, "an object", value);
    }
    const record = value as Record<string, unknown>;
    for (const [key, check] of Object.entries(shape) as Array<[string, Check<unknown>]>) {
      check(record[key], `${path}.${key}`);
    }
    return value as T;
  };

export const calendarFeed = object<CalendarFeed>({
  id: string,
  name: nullable(string),
  created_at: instant,
  last_fetched_at: nullable(instant),
});
export const calendarFeedWithUrl = object<CalendarFeedWithUrl>({
  id: string,
  name: nullable(string),
  created_at: instant,
  last_fetched_at: nullable(instant),
  url: string,
  webcal_url: string,
});
export const calendarFeedList = object<{ calendar_feeds: CalendarFeed[] }>({ calendar_feeds: arrayOf(calendarFeed) });

const price = object<Price>({ value: number, value_in_cents: integer, currency: string });

const account = object<Account>({
  id: string,
  slug: string,
  name: string,
  partner: boolean,
  profile_image_url: nullable(string),
  cover_image_url: nullable(string),
});

export const event = object<Event>({
  id: string,
  slug: string,
  duration_seconds: integer,
  scheduled_at: timestamp,
  live_at: nullable(timestamp),
  completed_at: nullable(timestamp),
  canceled_at: nullable(timestamp),
  offer_replay_purchase: boolean,
  name: string,
  description: nullable(string),
  cover_url: nullable(string),
  price,
  account,
});

export const guide = object<Guide>({
  id: string,
  slug: string,
  published_at: nullable(timestamp),
  name: string,
  description: nullable(string),
  cover_url: nullable(string),
  price,
  account,
});

export const pagination = object<Pagination>({ current_page: integer, per_page: integer, total_pages: integer });

export const cursorPagination = object<CursorPagination>({ per_page: integer, next_cursor: nullable(string) });

/** A page-mode or a cursor-mode list body; which one is told by `meta.pagination.next_cursor`. */
export const listBody =
  <T>(item: Check<T>): Check<{ guides: T[]; pagination: Pagination | CursorPagination }> =>
  (value, path) => {
    const body = object<{ guides: T[]; meta: { pagination: object } }>({
      guides: arrayOf(item),
      meta: object({ pagination: object({}) }),
    })(value, path);
    const raw = body.meta.pagination as Record<string, unknown>;
    const check = "next_cursor" in raw ? cursorPagination : pagination;
    return { guides: body.guides, pagination: check(raw, `${path}.meta.pagination`) };
  };

export const changesBody =
  <T>(item: Check<T>): Check<{ changes: Change<T>[]; next: string; hasMore: boolean }> =>
  (value, path) => {
    const body = object<{ changes: unknown[]; meta: { sync: { next: string; has_more: boolean } } }>({
      changes: arrayOf((entry) => entry),
      meta: object({ sync: object({ next: string, has_more: boolean }) }),
    })(value, path);
    const changes = body.changes.map((entry, i): Change<T> => {
      const at = `${path}.changes[${i}]`;
      const { op, id } = object<{ op: string; id: string }>({ op: string, id: string })(entry, at);
      if (op === "delete") return { op, id };
      if (op !== "upsert") throw new ShapeError(`${at}.op`, '"upsert" or "delete"', op);
      const upserted = item((entry as { item?: unknown }).item, `${at}.item`);
      if ((upserted as { id?: unknown }).id !== id) throw new ShapeError(`${at}.item.id`, `"${id}"`, upserted);
      return { op, id, item: upserted };
    });
    return { changes, next: body.meta.sync.next, hasMore: body.meta.sync.has_more };
  };

const parameterError = object<ParameterError>({ parameter: string, message: string });

/** A problem body, or undefined when the body is not one (a proxy's HTML page, say). */
export function asProblem(value: unknown): Problem | undefined {
  try {
    return object<Problem>({
      type: string,
      title: string,
      status: integer,
      detail: string,
      instance: string,
      errors: optional(arrayOf(parameterError)),
    })(value, "problem");
  } catch {
    return undefined;
  }
}
