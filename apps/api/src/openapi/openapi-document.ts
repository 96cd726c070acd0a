import {
  CALENDAR_SCOPE,
  CHANGES_WAIT,
  type ListDefinition,
  PAGINATION,
  READ_SCOPE,
  TEAM_LIST_DEFINITIONS,
  WEBHOOKS_SCOPE,
  wireJsonSchemas,
} from "@community/domain";
import { DEMO_TOKENS } from "@community/fixtures";
import { calendarFeedPaths } from "./calendar-feed-paths";
import type { ProblemName } from "./problem-catalogue";
import { problemComponents, problemRefs } from "./problem-responses";
import { PROBLEMS_OF_A_BEARER_REQUEST } from "./resource-operations";
import { webhookNotices, webhookPaths } from "./webhook-paths";

type Json = Record<string, unknown>;

const ref = (kind: "schemas" | "responses" | "headers" | "parameters", name: string) => ({
  $ref: `#/components/${kind}/${name}`,
});

const LIST_HEADERS = [
  "Link",
  "X-Total-Count",
  "ETag",
  "Cache-Control",
  "Vary",
  "Content-Encoding",
  "RateLimit-Policy",
  "RateLimit",
];
const NOT_MODIFIED_HEADERS = ["ETag", "Cache-Control", "Vary", "RateLimit-Policy", "RateLimit"];
const CHANGES_HEADERS = ["Cache-Control", "Vary", "Content-Encoding", "RateLimit-Policy", "RateLimit"];

const headers: Record<string, Json> = {
  Link: {
    description:
      'Page mode: RFC 8288 links to the same path with page, per_page and the filters set: rel="first", rel="last" (absent when there are no pages), rel="prev" and rel="next" where they exist. Cursor mode: rel="next" only, with cursor, per_page and the filters, while more items follow.',
    schema: { type: "string", examples: ['</v1/me/community/team/events?page=2&per_page=10>; rel="next"'] },
  },
  "X-Total-Count": {
    description: "Page mode: the number of items of the team that match the filters (all of them without filters).",
    schema: { type: "integer", minimum: 0, examples: [40] },
  },
  ETag: {
    description:
      "Page mode: entity tag of this representation; send it back in If-None-Match to get a 304 when unchanged. Each content coding has its own tag (`-gzip` or `-br` before the closing quote).",
    schema: { type: "string", pattern: '^(W/)?"[^"]*"$', examples: ['"q9uXbS6i0Ty3aEK0hZ2wkmM3rjxYQkHT"'] },
  },
  "Cache-Control": {
    description: "Per-user data: any cache must revalidate, and shared caches must not keep it.",
    required: true,
    schema: { type: "string", const: "private, no-cache" },
  },
  Vary: {
    description:
      "The representation depends on the Authorization header and, for its content coding, on Accept-Encoding.",
    required: true,
    schema: {
      type: "string",
      pattern: "(^|,\\s*)Authorization(\\s*,|$)",
      examples: ["Authorization, Accept-Encoding"],
    },
  },
  "Content-Encoding": {
    description:
      "gzip or br when the client's Accept-Encoding allows it and the body is 1 KB or more; absent for an uncompressed body.",
    schema: { type: "string", enum: ["gzip", "br"] },
  },
  "RateLimit-Policy": {
    description: "The rate-limit policy applied to the caller: quota q requests per window w seconds.",
    schema: { type: "string", examples: ["default;q=100;w=60"] },
  },
  RateLimit: {
    description: "The caller's remaining quota r and the seconds t until the window resets.",
    schema: { type: "string", examples: ["default;r=99;t=60"] },
  },
};

const queryParameter = (name: string, bounds: { min: number; max: number; default: number }, description: string) => ({
  name,
  in: "query",
  required: false,
  description: `${description} One or more ASCII digits within [${bounds.min}, ${bounds.max}], given at most once; anything else is a 400.`,
  schema: { type: "integer", minimum: bounds.min, maximum: bounds.max, default: bounds.default },
  example: bounds.default,
});

const PROBLEMS_OF_A_LIST: ProblemName[] = [
  ...PROBLEMS_OF_A_BEARER_REQUEST,
  "InvalidQuery",
  "NoCommunityTeam",
  "TooManyQueryParameters",
];

/**
 * Every path answers these when the request is refused before its handler, or fails. (A head
 * that is not HTTP at all gets a bad-request problem before any path is known: see BadRequest.)
 */
const PROBLEMS_OF_EVERY_PATH: ProblemName[] = [
  "PayloadTooLarge",
  "RequestTimeout",
  "RequestHeaderTooLarge",
  "TooManyQueryParameters",
  "Internal",
];

/** Answered on any path: unknown paths, and other methods than GET and HEAD on a list path. */
const PROBLEMS_OF_NO_OPERATION: ProblemName[] = ["NotFound", "MethodNotAllowed"];

/**
 * How a client tells the two shapes of a list's 200 apart; the wire has no discriminator property
 * (contract sections 5 and 9), but each shape requires a member that the other forbids.
 */
const PAGINATION_SHAPES =
  'The request decides the shape (`cursor` given: cursor mode), and the body tells it too: `meta.pagination` of a page has `current_page` and `total_pages`, that of a cursor page `next_cursor` (null on the last page); each shape requires its own members and allows no other (additionalProperties false), so exactly one schema of the oneOf matches. A generated client narrows with `"next_cursor" in body.meta.pagination` (cursor) or `"current_page" in body.meta.pagination` (page).';

/** The query parameters of a list's filters, from its declaration. */
function filterParameters(spec: ListDefinition): Json[] {
  const { from, to } = spec.window;
  const words = spec.status;
  const dateTime = (name: string, description: string) => ({
    name,
    in: "query",
    required: false,
    description: `${description} An RFC 3339 date-time with Z or an offset (fractional seconds allowed), given at most once; \`${from}\` must be before \`${to}\`.`,
    schema: { type: "string", format: "date-time", examples: ["2026-03-01T00:00:00Z"] },
  });
  return [
    {
      name: "status",
      in: "query",
      required: false,
      description: `Only items with any of these statuses: a comma-separated subset of ${words.join(", ")}, derived from the item's data alone.`,
      schema: { type: "string", examples: [words.slice(0, 2).join(",")] },
    },
    dateTime(from, "Only items at or after this instant."),
    dateTime(to, "Only items before this instant."),
  ];
}

function listOperations(spec: ListDefinition): Json {
  const what = spec.name;
  const schemaRef = (suffix: string) => ref("schemas", `${spec.schema}${suffix}`);
  const responses = (method: "get" | "head") => ({
    "200": {
      description:
        method === "get"
          ? `A page of the team's ${what}, ${spec.order}: in page mode a ${spec.schema}List (a page past the end is an empty page with the real total_pages), in cursor mode a ${spec.schema}CursorList. ${PAGINATION_SHAPES}`
          : "The headers of the page that GET would answer with, no body.",
      headers: Object.fromEntries(LIST_HEADERS.map((h) => [h, ref("headers", h)])),
      ...(method === "get"
        ? { content: { "application/json": { schema: { oneOf: [schemaRef("List"), schemaRef("CursorList")] } } } }
        : {}),
    },
    "304": {
      description: "Page mode: If-None-Match names the current ETag: the client's copy is current. No body.",
      headers: Object.fromEntries(NOT_MODIFIED_HEADERS.map((h) => [h, ref("headers", h)])),
    },
    ...problemRefs(PROBLEMS_OF_A_LIST),
  });
  const common = {
    tags: [what],
    parameters: [
      ref("parameters", "page"),
      ref("parameters", "per_page"),
      ref("parameters", "cursor"),
      ...filterParameters(spec),
      ref("parameters", "If-None-Match"),
      ref("parameters", "Accept-Encoding"),
    ],
    security: [{ bearer: [] }, { oauth2: [READ_SCOPE] }],
  };
  const title = what.charAt(0).toUpperCase() + what.slice(1);
  return {
    get: {
      operationId: `list${title}`,
      summary: `List the ${what} of the caller's community team`,
      description: `Ordering: ${spec.order}; total and stable, so walking the pages visits every item exactly once while the data does not change. With \`cursor\` (empty to start), a keyset walk that returns every item that stays in the list exactly once while the data changes, at the same cost at any depth. The array is named \`guides\` for both endpoints, as the specification names it.`,
      ...common,
      responses: responses("get"),
    },
    head: {
      operationId: `head${title}`,
      summary: `Headers of a page of ${what}`,
      description: `The status and headers (ETag, Link, X-Total-Count, RateLimit) that GET with the same query would answer with, without the body: a cheap check of whether the ${what} changed, or of their count.`,
      ...common,
      responses: responses("head"),
    },
  };
}

function changesOperations(spec: ListDefinition): Json {
  const what = spec.name;
  const title = what.charAt(0).toUpperCase() + what.slice(1);
  const responses = (method: "get" | "head") => ({
    "200": {
      description:
        method === "get"
          ? `Without since: no changes and a token that marks now. With since: the changes of the team's ${what} after that token, oldest first, at most one per item (its latest state), up to per_page.`
          : "The headers that GET would answer with, no body.",
      headers: Object.fromEntries(CHANGES_HEADERS.map((h) => [h, ref("headers", h)])),
      ...(method === "get"
        ? { content: { "application/json": { schema: ref("schemas", `${spec.schema}Changes`) } } }
        : {}),
    },
    ...problemRefs([...PROBLEMS_OF_A_LIST, "SyncExpired"]),
  });
  const common = {
    tags: [what],
    parameters: [
      ref("parameters", "since"),
      ref("parameters", "per_page"),
      ref("parameters", "wait"),
      ref("parameters", "Accept-Encoding"),
    ],
    security: [{ bearer: [] }, { oauth2: [READ_SCOPE] }],
  };
  return {
    get: {
      operationId: `list${title}Changes`,
      summary: `The changes of the team's ${what} since a token (delta sync)`,
      description:
        "Take a token (no since), walk the list, then ask for the changes since the token and keep the new token: a copy built so equals the list, field for field, whatever was written meanwhile (a transaction that began before the token and committed after it included). An item deleted or moved to another team is a delete; created, moved in or changed in any field (its account's included), an upsert.",
      ...common,
      responses: responses("get"),
    },
    head: {
      operationId: `head${title}Changes`,
      summary: `Headers of the changes of ${what}`,
      description:
        "The status and headers that GET with the same query would answer with, without the body (an expired `since` is a 410 here too).",
      ...common,
      responses: responses("head"),
    },
  };
}

const HEALTH_RESULT = ref("schemas", "HealthResult");

/**
 * Probes for the platform: no bearer token, never rate limited. /metrics is left out: it is for
 * the operators' scraper, not for API consumers (docs/operations.md).
 */
function operationsPaths(): Json {
  return {
    "/health/live": {
      get: {
        operationId: "healthLive",
        summary: "Liveness: the process serves HTTP",
        description: "Checks nothing else, so a database outage does not get the process restarted.",
        tags: ["operations"],
        security: [],
        responses: {
          "200": { description: "Alive.", content: { "application/json": { schema: HEALTH_RESULT } } },
          ...problemRefs(PROBLEMS_OF_EVERY_PATH),
        },
      },
    },
    "/health/ready": {
      get: {
        operationId: "healthReady",
        summary: "Readiness: the database answers and every migration is applied",
        description:
          "Route traffic to this replica only while it answers 200. A 503 problem names each failed check in `checks` (the database unreachable, a migration pending or failed, the server shutting down); a saturated pool, a replica read from the primary or an unreachable Redis are reported in `details` without failing. One check's result answers for READINESS_CACHE_MS.",
        tags: ["operations"],
        security: [],
        responses: {
          "200": {
            description: "Ready for traffic.",
            content: {
              "application/json": {
                schema: HEALTH_RESULT,
                example: {
                  status: "ok",
                  info: { database: { status: "up" } },
                  error: {},
                  details: { database: { status: "up" } },
                },
              },
            },
          },
          ...problemRefs([...PROBLEMS_OF_EVERY_PATH, "NotReady"]),
        },
      },
    },
  };
}

/**
 * The OpenAPI 3.1 document of the public API: its schemas are the zod wire schemas of
 * packages/domain (zod's own JSON Schema output), its parameters the pagination bounds, its error
 * responses the problem catalogue of common/problems.ts; `pnpm openapi` writes it to
 * docs/openapi.json and the api serves it at /openapi.json.
 */
export function buildOpenApiDocument(): Json {
  return {
    openapi: "3.1.1",
    info: {
      title: "Community team events and guides",
      version: "1.0.0",
      description:
        "Paginated lists of the events and guides of your community team. Errors are RFC 9457 problems " +
        "(application/problem+json); the contract is docs/api.md. " +
        `Demo token: \`${DEMO_TOKENS.runners.token}\` (Authorize, bearer).`,
      contact: { name: "Community team maintainers", url: "https://community-team.dev" },
      license: { name: "Apache-2.0", identifier: "Apache-2.0" },
    },
    servers: [{ url: "/", description: "The server that serves this document" }],
    tags: [
      ...TEAM_LIST_DEFINITIONS.map((spec) => ({ name: spec.name, description: `The team's ${spec.name}` })),
      { name: "webhooks", description: "Signed notices that a list changed (Standard Webhooks)" },
      { name: "calendar feeds", description: "The team's events as iCalendar feeds behind secret URLs" },
      { name: "operations", description: "Health probes for the platform" },
    ],
    paths: {
      ...Object.fromEntries(
        TEAM_LIST_DEFINITIONS.flatMap((spec) => [
          [spec.path, listOperations(spec)],
          [`${spec.path}/changes`, changesOperations(spec)],
        ]),
      ),
      ...webhookPaths(),
      ...calendarFeedPaths(),
      ...operationsPaths(),
    },
    webhooks: webhookNotices(),
    components: {
      schemas: wireJsonSchemas(),
      parameters: {
        page: queryParameter("page", PAGINATION.page, "The page to return, from 1."),
        per_page: queryParameter("per_page", PAGINATION.perPage, "Items (or changes) per page."),
        cursor: {
          name: "cursor",
          in: "query",
          required: false,
          description:
            "Cursor mode: empty to start a walk, else next_cursor of the previous page. Bound to the list, the filters and the caller's team; altered, forged or used elsewhere it is a 400. Not with page.",
          schema: { type: "string" },
        },
        since: {
          name: "since",
          in: "query",
          required: false,
          description:
            "meta.sync.next of an earlier changes response. Altered or forged: 400; issued for another team or list, older than the retention, or from before the caller changed team: 410 sync-expired.",
          schema: { type: "string" },
        },
        wait: queryParameter(
          "wait",
          CHANGES_WAIT,
          "Long poll, only with since: when no change is waiting, hold the request until a change to the team's list commits (answered with it) or this many seconds pass (answered with no changes, has_more false and a next). HEAD is answered at once. At most CHANGES_WAIT_MAX_PER_TOKEN requests of one access token are held at once (4 by default): another gets 429 rate-limited with Retry-After.",
        ),
        "If-None-Match": {
          name: "If-None-Match",
          in: "header",
          required: false,
          description: "An ETag from an earlier response: a 304 with no body when it still matches.",
          schema: { type: "string" },
        },
        "Accept-Encoding": {
          name: "Accept-Encoding",
          in: "header",
          required: false,
          description:
            "Content codings the client accepts (RFC 9110): br is preferred, then gzip; without it, or with neither, the body is uncompressed.",
          schema: { type: "string", examples: ["gzip, br"] },
        },
      },
      headers,
      responses: problemComponents([
        ...PROBLEMS_OF_A_LIST,
        ...PROBLEMS_OF_EVERY_PATH,
        ...PROBLEMS_OF_NO_OPERATION,
        "SyncExpired",
        "BadRequest",
        "NotReady",
        "InvalidBody",
        "UnsupportedMediaType",
        "WebhookNotFound",
        "WebhookUnreachable",
        "WebhookLimit",
        "WebhookInactive",
        "WebhooksUnavailable",
        "CalendarFeedNotFound",
        "CalendarFeedLimit",
      ]),
      securitySchemes: {
        bearer: {
          type: "http",
          scheme: "bearer",
          description: `An access token (RFC 6750). Opaque demo tokens work too, e.g. ${DEMO_TOKENS.runners.token}.`,
        },
        oauth2: {
          type: "oauth2",
          description: "Authorization-code flow with PKCE against the built-in authorization server.",
          flows: {
            authorizationCode: {
              authorizationUrl: "/oauth/auth",
              tokenUrl: "/oauth/token",
              refreshUrl: "/oauth/token",
              scopes: {
                [READ_SCOPE]: "Read the events and guides of your community team",
                [WEBHOOKS_SCOPE]: "Subscribe to, list and manage webhooks of your community team's lists",
                [CALENDAR_SCOPE]: "Create, list, rotate and delete calendar feeds of your community team's events",
              },
            },
          },
        },
      },
    },
  };
}
