import { z } from "zod";
import type { Account, Event, Guide, Price } from "./entities";
import { type CursorPagination, PAGINATION, type Pagination, type SyncState } from "./pagination";
import { TIMESTAMP_PATTERN } from "./timestamp";

/**
 * JSON Schemas of the wire types, described once with zod and turned into the OpenAPI document's
 * `components.schemas` by `wireJsonSchemas()`. The compile-time checks at the end keep these
 * schemas and the TypeScript types of entities.ts identical.
 */
export const wireRegistry = z.registry<{ id: string; description?: string }>();

const timestamp = z
  .string()
  .regex(TIMESTAMP_PATTERN)
  .meta({
    format: "date-time",
    description: "ISO 8601 in UTC with second precision and a Z suffix: YYYY-MM-DDTHH:MM:SSZ (no fraction, no offset).",
    examples: ["2026-03-01T18:30:00Z"],
  });

const absoluteUrl = z
  .string()
  .regex(/^https?:\/\//)
  .meta({ format: "uri", description: "An absolute http:// or https:// URL." });

const identifier = (examples: string[]) => z.string().min(1).max(64).meta({ examples });

export const priceSchema = z
  .strictObject({
    value: z
      .number()
      .min(0)
      .meta({
        description:
          "value_in_cents / 10^d, d being the ISO 4217 minor-unit digits of the currency (USD 2, JPY 0, BHD 3).",
        examples: [19.99],
      }),
    value_in_cents: z
      .int()
      .min(0)
      .meta({ description: "The amount in the currency's minor unit.", examples: [1999] }),
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/)
      .meta({ description: "ISO 4217 alphabetic code, upper case.", examples: ["USD"] }),
  })
  .register(wireRegistry, { id: "Price", description: "A price; a free item is 0 / 0." });

export const accountSchema = z
  .strictObject({
    id: identifier(["acc_jane"]),
    slug: z.string().meta({ description: "Globally unique.", examples: ["jane-doe"] }),
    name: z.string().meta({ examples: ["Jane Doe"] }),
    partner: z.boolean(),
    profile_image_url: absoluteUrl.nullable(),
    cover_image_url: absoluteUrl.nullable(),
  })
  .register(wireRegistry, { id: "Account", description: "The account that owns an event or a guide." });

export const eventSchema = z
  .strictObject({
    id: identifier(["ev_1"]),
    slug: z.string().meta({ description: "Unique within the team's events.", examples: ["spring-run"] }),
    duration_seconds: z
      .int()
      .min(0)
      .meta({ examples: [3600] }),
    scheduled_at: timestamp,
    live_at: timestamp.nullable().meta({ description: "null until the event went live." }),
    completed_at: timestamp.nullable().meta({ description: "null until the event completed." }),
    canceled_at: timestamp.nullable().meta({ description: "null unless the event was canceled." }),
    offer_replay_purchase: z.boolean(),
    name: z.string().meta({ examples: ["Spring run"] }),
    description: z.string().nullable(),
    cover_url: absoluteUrl.nullable(),
    price: priceSchema,
    account: accountSchema,
  })
  .register(wireRegistry, { id: "Event", description: "An event of the team. Every field is always present." });

// The entities' schemas share fields, repeated on purpose: each is the wire's whole declaration of its type.
export const guideSchema = z
  .strictObject({
    id: identifier(["gd_1"]),
    slug: z.string().meta({ description: "Unique within the team's guides.", examples: ["first-5k"] }),
    published_at: timestamp.nullable().meta({ description: "null while the guide is a draft." }),
    name: z.string().meta({ examples: ["Your first 5k"] }),
    description: z.string().nullable(),
    cover_url: absoluteUrl.nullable(),
    price: priceSchema,
    account: accountSchema,
  })
  .register(wireRegistry, { id: "Guide", description: "A guide of the team, drafts included." });

export const paginationSchema = z
  .strictObject({
    current_page: z
      .int()
      .min(PAGINATION.page.min)
      .max(PAGINATION.page.max)
      .meta({ description: "The page that was asked for, also when it is past the end.", examples: [1] }),
    per_page: z
      .int()
      .min(PAGINATION.perPage.min)
      .max(PAGINATION.perPage.max)
      .meta({ description: "The page size in effect.", examples: [PAGINATION.perPage.default] }),
    total_pages: z
      .int()
      .min(0)
      .meta({ description: "ceil(total items / per_page); 0 when the team has no items.", examples: [1] }),
  })
  .register(wireRegistry, { id: "Pagination" });

const pageMetaSchema = z.strictObject({ pagination: paginationSchema });

export const cursorPaginationSchema = z
  .strictObject({
    per_page: z
      .int()
      .min(PAGINATION.perPage.min)
      .max(PAGINATION.perPage.max)
      .meta({ description: "The page size in effect.", examples: [PAGINATION.perPage.default] }),
    next_cursor: z
      .string()
      .nullable()
      .meta({ description: "The cursor of the next page; null on the page that holds the last item." }),
  })
  .register(wireRegistry, { id: "CursorPagination", description: "Where a cursor walk stands (no totals)." });

export const syncStateSchema = z
  .strictObject({
    next: z.string().meta({ description: "The token to ask with next (`since`); opaque, bound to the team and list." }),
    has_more: z.boolean().meta({ description: "More changes are waiting: ask again at once with `next`." }),
  })
  .register(wireRegistry, { id: "SyncState" });

/**
 * The envelopes of one list, registered under the item's name: a page (`<name>List`), a cursor
 * page (`<name>CursorList`), a change (`<name>Change`) and a page of changes (`<name>Changes`).
 */
function listWireSchemas<Item extends z.ZodType>(name: string, item: Item, plural: string) {
  const items = z.array(item).meta({ description: `The ${plural} (named guides by the specification).` });
  const page = z
    .strictObject({ guides: items, meta: pageMetaSchema })
    .register(wireRegistry, { id: `${name}List`, description: `A page of ${plural}.` });
  const cursorPage = z
    .strictObject({ guides: items, meta: z.strictObject({ pagination: cursorPaginationSchema }) })
    .register(wireRegistry, { id: `${name}CursorList`, description: `A page of a cursor walk over the ${plural}.` });
  const change = z
    .discriminatedUnion("op", [
      z.strictObject({ op: z.literal("upsert"), id: z.string(), item }),
      z.strictObject({ op: z.literal("delete"), id: z.string() }),
    ])
    .register(wireRegistry, {
      id: `${name}Change`,
      description: `An upsert carries the ${name.toLowerCase()} exactly as the list serves it; a delete, one that left the team (deleted or moved).`,
    });
  const changes = z
    .strictObject({ changes: z.array(change), meta: z.strictObject({ sync: syncStateSchema }) })
    .register(wireRegistry, {
      id: `${name}Changes`,
      description: `Changes of the ${plural} since a token, oldest first, at most one per item.`,
    });
  return { page, cursorPage, change, changes };
}

export const eventWireSchemas = listWireSchemas("Event", eventSchema, "events");
export const guideWireSchemas = listWireSchemas("Guide", guideSchema, "guides");

export const parameterErrorSchema = z
  .strictObject({
    parameter: z.string().meta({ examples: ["per_page"] }),
    message: z.string().meta({ examples: ["must be an integer between 1 and 100"] }),
  })
  .register(wireRegistry, { id: "ParameterError" });

export const healthIndicatorSchema = z
  .looseObject({
    status: z.enum(["up", "down"]),
    message: z.string().optional(),
    pending: z.number().int().optional().describe("How many of this build's migrations are not applied yet."),
    failed: z.number().int().optional().describe("How many migrations failed."),
  })
  .register(wireRegistry, { id: "HealthIndicator" });

const healthIndicators = z.record(z.string(), healthIndicatorSchema);

export const healthResultSchema = z
  .looseObject({
    status: z.literal("ok"),
    info: healthIndicators,
    error: healthIndicators,
    details: healthIndicators,
  })
  .register(wireRegistry, { id: "HealthResult", description: "@nestjs/terminus health check result." });

/** RFC 9457 problem details; clients ignore members they do not know (section 3.2). */
export const problemSchema = z
  .looseObject({
    type: z
      .string()
      .meta({ format: "uri", examples: ["https://community-team.dev/problems/invalid-query"] })
      .describe("A URI whose last segment names the problem (invalid-query, unauthorized, ...)."),
    title: z.string().meta({ examples: ["Invalid query parameter"] }),
    status: z
      .int()
      .min(400)
      .max(599)
      .meta({ examples: [400] }),
    detail: z.string().meta({ examples: ["per_page must be an integer between 1 and 100"] }),
    instance: z
      .string()
      .meta({ format: "uri-reference", examples: ["/v1/me/community/team/guides?per_page=500"] })
      .describe(
        "The path of the request with its page and per_page parameters, never any other query parameter; `*` when the request head could not be read.",
      ),
    errors: z.array(parameterErrorSchema).min(1).optional().describe("Every invalid query parameter (400 only)."),
    checks: healthIndicators.optional().describe("The result of each readiness check (503 of /health/ready only)."),
  })
  .register(wireRegistry, { id: "Problem", description: "An RFC 9457 problem (application/problem+json)." });

export type ParameterError = z.infer<typeof parameterErrorSchema>;
export type Problem = z.infer<typeof problemSchema>;

/** The registered schemas as JSON Schema 2020-12 objects, referencing each other by `refPrefix`. */
export function wireJsonSchemas(refPrefix = "#/components/schemas/"): Record<string, Record<string, unknown>> {
  const { schemas } = z.toJSONSchema(wireRegistry, {
    target: "draft-2020-12",
    uri: (id) => `${refPrefix}${id}`,
  });
  return Object.fromEntries(
    Object.entries(schemas).map(([id, schema]) => {
      // Inside an OpenAPI 3.1 document the dialect is implied and ids are the component names.
      const { $schema: _dialect, $id: _id, ...rest } = schema as Record<string, unknown>;
      return [id, rest];
    }),
  );
}

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameShapes: [
  Same<z.infer<typeof priceSchema>, Price>,
  Same<z.infer<typeof accountSchema>, Account>,
  Same<z.infer<typeof eventSchema>, Event>,
  Same<z.infer<typeof guideSchema>, Guide>,
  Same<z.infer<typeof paginationSchema>, Pagination>,
  Same<z.infer<typeof cursorPaginationSchema>, CursorPagination>,
  Same<z.infer<typeof syncStateSchema>, SyncState>,
] = [true, true, true, true, true, true, true];
void sameShapes;
