import { z } from "zod";
import { isCurrencyCode } from "./currency";
import { LIST_NAMES } from "./team-lists";
import { isTimestamp } from "./timestamp";

/**
 * The fixture file that apps/seed loads (contract section 8). Every key is required; nullable
 * values are spelled out as null. Validation reports every bad entry by JSON path.
 */

const id = z
  .string({ error: "must be a string" })
  .min(1, { error: "must be a non-empty string" })
  .max(64, { error: "must be at most 64 characters" });

const nonEmpty = z.string({ error: "must be a string" }).min(1, { error: "must not be empty" });

const slug = nonEmpty.max(200, { error: "must be at most 200 characters" });

const timestamp = z.string({ error: "must be a string" }).refine(isTimestamp, {
  error: "must be a UTC timestamp of the form YYYY-MM-DDTHH:MM:SSZ",
});

const httpUrl = z.string({ error: "must be a string" }).refine(
  (value) => {
    // The WHATWG parser forgives surrounding spaces and "https:host" without slashes, but the value
    // is served as stored, so it must already be a clean absolute URL.
    if (!/^https?:\/\/[^\s\p{Cc}]+$/iu.test(value)) {
      return false;
    }
    try {
      const url = new URL(value);
      return url.protocol === "https:" || url.protocol === "http:";
    } catch {
      return false;
    }
  },
  { error: "must be an absolute http:// or https:// URL" },
);

const nonNegativeInt = z
  .number({ error: "must be a number" })
  .int({ error: "must be an integer" })
  .min(0, { error: "must be >= 0" })
  .max(2_147_483_647, { error: "must be <= 2147483647" });

/** RFC 6750 b64token: what an Authorization: Bearer header can carry. */
const bearerToken = z
  .string({ error: "must be a string" })
  .regex(/^[A-Za-z0-9\-._~+/]+=*$/, {
    error: "must be a non-empty RFC 6750 token (letters, digits and -._~+/, then optional =)",
  })
  .max(4096, { error: "must be at most 4096 characters" });

const price = z.strictObject({
  value_in_cents: nonNegativeInt,
  currency: z.string({ error: "must be a string" }).refine(isCurrencyCode, {
    error: "must be an upper-case ISO 4217 currency code such as USD, EUR or JPY",
  }),
});

const account = z.strictObject({
  id,
  slug,
  name: nonEmpty,
  partner: z.boolean({ error: "must be a boolean" }),
  profile_image_url: httpUrl.nullable(),
  cover_image_url: httpUrl.nullable(),
});

const team = z.strictObject({ id, name: nonEmpty });

const password = z
  .string({ error: "must be a string" })
  .min(8, { error: "must be at least 8 characters" })
  .max(1024, { error: "must be at most 1024 characters" });

/**
 * `password` (optional) lets the user log in on the built-in authorization server; it is stored
 * only as a slow hash. Absent: a stored password is left as it is; null: it is removed.
 */
const user = z.strictObject({ id, name: nonEmpty, team_id: id.nullable(), password: password.nullable().optional() });

/** An absolute redirect URI without a fragment (RFC 6749 section 3.1.2). */
const redirectUri = z.string({ error: "must be a string" }).refine(
  (value) => {
    try {
      const url = new URL(value);
      return url.hash === "" && !value.includes("#") && /^[a-z][a-z0-9+.-]*:/i.test(value);
    } catch {
      return false;
    }
  },
  { error: "must be an absolute URI without a fragment" },
);

/**
 * A client of the built-in authorization server. `client_secret` null: a public client (a
 * browser or native app) that proves itself with PKCE only; a string: a confidential client,
 * whose secret is stored only as a slow hash.
 */
const oauthClient = z.strictObject({
  client_id: nonEmpty.max(200, { error: "must be at most 200 characters" }),
  name: nonEmpty,
  client_secret: z
    .string({ error: "must be a string" })
    .min(16, { error: "must be at least 16 characters" })
    .max(1024, { error: "must be at most 1024 characters" })
    .nullable(),
  redirect_uris: z
    .array(redirectUri, { error: "must be an array" })
    .min(1, { error: "must name at least one redirect URI" }),
});

const accessToken = z.strictObject({
  token: bearerToken,
  user_id: id,
  client_id: nonEmpty.max(200, { error: "must be at most 200 characters" }),
  expires_at: timestamp.nullable(),
  revoked: z.boolean({ error: "must be a boolean" }),
});

/** What an event and a guide share: identity, owner, team and presentation. */
const teamItem = {
  id,
  team_id: id,
  account_id: id,
  slug,
  name: nonEmpty,
  description: z.string({ error: "must be a string" }).nullable(),
  cover_url: httpUrl.nullable(),
};

const event = z.strictObject({
  ...teamItem,
  duration_seconds: nonNegativeInt,
  scheduled_at: timestamp,
  live_at: timestamp.nullable(),
  completed_at: timestamp.nullable(),
  canceled_at: timestamp.nullable(),
  offer_replay_purchase: z.boolean({ error: "must be a boolean" }),
  price,
});

const guide = z.strictObject({
  ...teamItem,
  published_at: timestamp.nullable(),
  price,
});

export const FixtureFileSchema = z.strictObject({
  accounts: z.array(account, { error: "must be an array" }),
  teams: z.array(team, { error: "must be an array" }),
  users: z.array(user, { error: "must be an array" }),
  access_tokens: z.array(accessToken, { error: "must be an array" }),
  events: z.array(event, { error: "must be an array" }),
  guides: z.array(guide, { error: "must be an array" }),
  /** Optional, so that fixture files written before the authorization server stay valid. */
  oauth_clients: z.array(oauthClient, { error: "must be an array" }).optional(),
});

export type FixtureFile = z.infer<typeof FixtureFileSchema>;
export type FixtureAccount = FixtureFile["accounts"][number];
export type FixtureTeam = FixtureFile["teams"][number];
export type FixtureUser = FixtureFile["users"][number];
export type FixtureAccessToken = FixtureFile["access_tokens"][number];
export type FixtureEvent = FixtureFile["events"][number];
export type FixtureGuide = FixtureFile["guides"][number];
export type FixtureOAuthClient = NonNullable<FixtureFile["oauth_clients"]>[number];

export interface FixtureIssue {
  /** JSON path of the bad entry, e.g. `events[3].price.currency`; `$` is the whole file. */
  path: string;
  message: string;
}

export type FixtureValidation = { ok: true; fixture: FixtureFile } | { ok: false; issues: FixtureIssue[] };

export function formatJsonPath(path: ReadonlyArray<PropertyKey>): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") {
      out += `[${key}]`;
    } else {
      const name = String(key);
      out += /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? `${out ? "." : ""}${name}` : `[${JSON.stringify(name)}]`;
    }
  }
  return out || "$";
}

/**
 * Checks the shape of every entry, then what a single entry cannot show: duplicate ids, slugs
 * and tokens. References (team_id, account_id, user_id) are checked by the loader, since they may
 * name rows that are already in the database.
 */
export function validateFixture(input: unknown): FixtureValidation {
  const parsed = FixtureFileSchema.safeParse(input, { reportInput: true });
  if (!parsed.success) {
    return {
      ok: false,
      issues: parsed.error.issues.map((issue) => ({
        path: formatJsonPath(issue.path),
        // A missing key fails its type check ("must be a string"), which would misstate the fix.
        message:
          issue.code === "invalid_type" && issue.input === undefined && issue.path.length > 0
            ? "is required"
            : issue.message,
      })),
    };
  }
  const issues = findDuplicates(parsed.data);
  return issues.length > 0 ? { ok: false, issues } : { ok: true, fixture: parsed.data };
}

function findDuplicates(fixture: FixtureFile): FixtureIssue[] {
  const issues: FixtureIssue[] = [];
  const check = <T>(
    collection: keyof FixtureFile,
    items: readonly T[],
    field: string,
    keyOf: (item: T) => string,
    what: string,
  ): void => {
    const seen = new Map<string, number>();
    items.forEach((item, index) => {
      const key = keyOf(item);
      const first = seen.get(key);
      if (first === undefined) {
        seen.set(key, index);
      } else {
        issues.push({
          path: `${collection}[${index}].${field}`,
          message: `${what} is already used by ${collection}[${first}]`,
        });
      }
    });
  };
  check("accounts", fixture.accounts, "id", (a) => a.id, "id");
  check("accounts", fixture.accounts, "slug", (a) => a.slug, "slug");
  check("teams", fixture.teams, "id", (t) => t.id, "id");
  check("users", fixture.users, "id", (u) => u.id, "id");
  check("access_tokens", fixture.access_tokens, "token", (t) => t.token, "token");
  for (const list of LIST_NAMES) {
    const items: readonly { id: string; team_id: string; slug: string }[] = fixture[list];
    check(list, items, "id", (item) => item.id, "id");
    check(list, items, "slug", (item) => `${item.team_id}\u0000${item.slug}`, "slug (within its team)");
  }
  check("oauth_clients", fixture.oauth_clients ?? [], "client_id", (c) => c.client_id, "client_id");
  return issues;
}
