import { PAGINATION, wireJsonSchemas } from "@community/domain";
import { DEMO_TOKENS } from "@community/fixtures";
import { READ_SCOPE } from "../auth/scopes";

type Json = Record<string, unknown>;

const ref = (kind: "schemas" | "responses" | "headers" | "parameters", name: string) => ({
  $ref: `#/components/${kind}/${name}`,
});

const LIST_HEADERS = ["Link", "X-Total-Count", "ETag", "Cache-Control", "Vary", "RateLimit-Policy", "RateLimit"];
const NOT_MODIFIED_HEADERS = ["ETag", "Cache-Control", "Vary", "RateLimit-Policy", "RateLimit"];

const headers: Record<string, Json> = {
  Link: {
    description:
      'RFC 8288 links to the same path with page and per_page set: rel="first", rel="last" (absent when there are no pages), rel="prev" and rel="next" where they exist.',
    required: true,
    schema: { type: "string", examples: ['</v1/me/community/team/events?page=2&per_page=10>; rel="next"'] },
  },
  "X-Total-Count": {
    description: "The total number of items of the team.",
    required: true,
    schema: { type: "integer", minimum: 0, examples: [40] },
  },
  ETag: {
    description: "Entity tag of this representation; send it back in If-None-Match to get a 304 when unchanged.",
    required: true,
    schema: { type: "string", pattern: '^(W/)?"[^"]*"$', examples: ['"q9uXbS6i0Ty3aEK0hZ2wkmM3rjxYQkHT"'] },
  },
  "Cache-Control": {
    description: "Per-user data: any cache must revalidate, and shared caches must not keep it.",
    required: true,
    schema: { type: "string", const: "private, no-cache" },
  },
  Vary: {
    description: "The representation depends on the Authorization header.",
    required: true,
    schema: { type: "string", pattern: "(^|,\\s*)Authorization(\\s*,|$)", examples: ["Authorization"] },
  },
  "RateLimit-Policy": {
    description: "The rate-limit policy applied to the caller: quota q requests per window w seconds.",
    schema: { type: "string", examples: ["default;q=100;w=60"] },
  },
  RateLimit: {
    description: "The caller's remaining quota r and the seconds t until the window resets.",
    schema: { type: "string", examples: ["default;r=99;t=60"] },
  },
  "Retry-After": {
    description: "Seconds to wait before trying again.",
    required: true,
    schema: { type: "integer", minimum: 0, examples: [5] },
  },
  "WWW-Authenticate": {
    description: "RFC 6750 challenge.",
    required: true,
    schema: { type: "string", pattern: '^Bearer realm="api"', examples: ['Bearer realm="api", error="invalid_token"'] },
  },
  Allow: {
    description: "The methods the resource answers.",
    required: true,
    schema: { type: "string", const: "GET, HEAD" },
  },
};

interface ProblemResponse {
  status: number;
  description: string;
  types: string[];
  headers?: string[];
  example: Json;
}

/** Every problem the api answers with (contract section 7, plus 403 for the read scope). */
const problems: Record<string, ProblemResponse> = {
  InvalidQuery: {
    status: 400,
    description:
      "page or per_page is not a plain decimal integer within its bounds, or is given more than once; `errors` lists every invalid parameter.",
    types: ["invalid-query"],
    example: {
      type: "https://community-team.dev/problems/invalid-query",
      title: "Invalid query parameter",
      status: 400,
      detail: "per_page must be an integer between 1 and 100",
      instance: "/v1/me/community/team/guides?per_page=500",
      errors: [{ parameter: "per_page", message: "must be an integer between 1 and 100" }],
    },
  },
  Unauthorized: {
    status: 401,
    description:
      'No, malformed, unknown, expired or revoked access token. A token that was sent but is not valid adds error="invalid_token" to the challenge.',
    types: ["unauthorized"],
    headers: ["WWW-Authenticate"],
    example: {
      type: "https://community-team.dev/problems/unauthorized",
      title: "Unauthorized",
      status: 401,
      detail: "The access token is not valid",
      instance: "/v1/me/community/team/events",
    },
  },
  InsufficientScope: {
    status: 403,
    description: `The access token does not carry the ${READ_SCOPE} scope (error="insufficient_scope" in the challenge).`,
    types: ["insufficient-scope"],
    headers: ["WWW-Authenticate"],
    example: {
      type: "https://community-team.dev/problems/insufficient-scope",
      title: "Insufficient scope",
      status: 403,
      detail: `The access token does not grant the scope ${READ_SCOPE}`,
      instance: "/v1/me/community/team/events",
    },
  },
  NotFound: {
    status: 404,
    description:
      "The authenticated user is not a member of a community team (no-community-team), or no such path (not-found).",
    types: ["not-found", "no-community-team"],
    example: {
      type: "https://community-team.dev/problems/no-community-team",
      title: "No community team",
      status: 404,
      detail: "The authenticated user is not a member of a community team",
      instance: "/v1/me/community/team/events",
    },
  },
  MethodNotAllowed: {
    status: 405,
    description: "Any method other than GET and HEAD on a list path.",
    types: ["method-not-allowed"],
    headers: ["Allow"],
    example: {
      type: "https://community-team.dev/problems/method-not-allowed",
      title: "Method not allowed",
      status: 405,
      detail: "POST is not allowed here; use GET or HEAD",
      instance: "/v1/me/community/team/events",
    },
  },
  NotAcceptable: {
    status: 406,
    description: "The Accept header excludes application/json.",
    types: ["not-acceptable"],
    example: {
      type: "https://community-team.dev/problems/not-acceptable",
      title: "Not acceptable",
      status: 406,
      detail: "This endpoint produces application/json; the Accept header excludes it",
      instance: "/v1/me/community/team/events",
    },
  },
  RateLimited: {
    status: 429,
    description: "The caller exceeded its rate limit; retry after Retry-After seconds.",
    types: ["rate-limited"],
    headers: ["Retry-After"],
    example: {
      type: "https://community-team.dev/problems/rate-limited",
      title: "Too many requests",
      status: 429,
      detail: "Rate limit exceeded; try again later",
      instance: "/v1/me/community/team/events",
    },
  },
  PayloadTooLarge: {
    status: 413,
    description: "The request declares a body larger than BODY_LIMIT_BYTES (no endpoint takes a body).",
    types: ["payload-too-large"],
    example: {
      type: "https://community-team.dev/problems/payload-too-large",
      title: "Payload too large",
      status: 413,
      detail: "Request bodies are limited to 102400 bytes",
      instance: "/v1/me/community/team/events",
    },
  },
  Internal: {
    status: 500,
    description: "An unexpected failure; the body never carries a stack, SQL or internal message.",
    types: ["internal"],
    example: {
      type: "https://community-team.dev/problems/internal",
      title: "Internal server error",
      status: 500,
      detail: "An unexpected error occurred",
      instance: "/v1/me/community/team/events",
    },
  },
  Unavailable: {
    status: 503,
    description:
      "The database is unreachable, or the request ran longer than REQUEST_TIMEOUT_MS; the service recovers by itself. Retry after Retry-After seconds.",
    types: ["unavailable"],
    headers: ["Retry-After"],
    example: {
      type: "https://community-team.dev/problems/unavailable",
      title: "Service unavailable",
      status: 503,
      detail: "The database is unreachable; try again later",
      instance: "/v1/me/community/team/events",
    },
  },
};

function problemResponse(problem: ProblemResponse): Json {
  const schema = {
    allOf: [
      ref("schemas", "Problem"),
      {
        type: "object",
        properties: {
          // The prefix is configurable (PROBLEM_BASE_URL); the last segment is fixed.
          type: { pattern: `/(${problem.types.join("|")})$` },
          status: { const: problem.status },
        },
        ...(problem.status === 400 ? { required: ["errors"] } : {}),
      },
    ],
  };
  return {
    description: problem.description,
    ...(problem.headers ? { headers: Object.fromEntries(problem.headers.map((h) => [h, ref("headers", h)])) } : {}),
    content: { "application/problem+json": { schema, example: problem.example } },
  };
}

const queryParameter = (name: string, bounds: { min: number; max: number; default: number }, description: string) => ({
  name,
  in: "query",
  required: false,
  description: `${description} One or more ASCII digits within [${bounds.min}, ${bounds.max}], given at most once; anything else is a 400.`,
  schema: { type: "integer", minimum: bounds.min, maximum: bounds.max, default: bounds.default },
  example: bounds.default,
});

const PROBLEMS_OF_A_LIST = [
  "InvalidQuery",
  "Unauthorized",
  "InsufficientScope",
  "NotFound",
  "NotAcceptable",
  "PayloadTooLarge",
  "RateLimited",
  "Internal",
  "Unavailable",
];

function listOperations(what: "events" | "guides", listSchema: string, order: string): Json {
  const responses = (method: "get" | "head") => ({
    "200": {
      description:
        method === "get"
          ? `A page of the team's ${what}, ${order}. A page past the end is an empty page with the real total_pages.`
          : "The headers of the page that GET would answer with, no body.",
      headers: Object.fromEntries(LIST_HEADERS.map((h) => [h, ref("headers", h)])),
      ...(method === "get" ? { content: { "application/json": { schema: ref("schemas", listSchema) } } } : {}),
    },
    "304": {
      description: "If-None-Match names the current ETag: the client's copy is current. No body.",
      headers: Object.fromEntries(NOT_MODIFIED_HEADERS.map((h) => [h, ref("headers", h)])),
    },
    ...Object.fromEntries(PROBLEMS_OF_A_LIST.map((name) => [String(problems[name]?.status), ref("responses", name)])),
  });
  const common = {
    tags: [what],
    parameters: [ref("parameters", "page"), ref("parameters", "per_page"), ref("parameters", "If-None-Match")],
    security: [{ bearer: [] }, { oauth2: [READ_SCOPE] }],
  };
  const title = what === "events" ? "Events" : "Guides";
  return {
    get: {
      operationId: `list${title}`,
      summary: `List the ${what} of the caller's community team`,
      description: `Ordering: ${order}; total and stable, so walking the pages visits every item exactly once while the data does not change. The array is named \`guides\` for both endpoints, as the specification names it.`,
      ...common,
      responses: responses("get"),
    },
    head: {
      operationId: `head${title}`,
      summary: `Headers of a page of ${what}`,
      ...common,
      responses: responses("head"),
    },
  };
}

const HEALTH_RESULT = {
  type: "object",
  description: "@nestjs/terminus health check result.",
  required: ["status", "info", "error", "details"],
  properties: {
    status: { const: "ok" },
    info: { type: "object", additionalProperties: ref("schemas", "HealthIndicator") },
    error: { type: "object", additionalProperties: ref("schemas", "HealthIndicator") },
    details: { type: "object", additionalProperties: ref("schemas", "HealthIndicator") },
  },
};

const HEALTH_INDICATOR = {
  type: "object",
  required: ["status"],
  properties: {
    status: { enum: ["up", "down"] },
    message: { type: "string" },
    pending: { type: "array", items: { type: "string" }, description: "Migrations not applied yet." },
    failed: { type: "array", items: { type: "string" }, description: "Migrations that failed." },
  },
};

/** Probes and metrics for the platform: no bearer token, never rate limited. */
function operationsPaths(): Json {
  const common = (name: string) => ({ [String(problems[name]?.status)]: ref("responses", name) });
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
          ...common("PayloadTooLarge"),
          ...common("Internal"),
        },
      },
    },
    "/health/ready": {
      get: {
        operationId: "healthReady",
        summary: "Readiness: the database answers and every migration is applied",
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
          ...common("PayloadTooLarge"),
          ...common("Internal"),
          "503": ref("responses", "NotReady"),
        },
      },
    },
    "/metrics": {
      get: {
        operationId: "metrics",
        summary: "Prometheus metrics (text exposition format)",
        description:
          "Request counts and latency by route and status, database query latency, pool use, process metrics. Requires `Authorization: Bearer <METRICS_TOKEN>` when METRICS_TOKEN is set.",
        tags: ["operations"],
        security: [{}, { metricsToken: [] }],
        responses: {
          "200": {
            description: "The metrics.",
            content: { "text/plain": { schema: { type: "string" } } },
          },
          "401": {
            description: "METRICS_TOKEN is set and the request does not carry it.",
            headers: {
              "WWW-Authenticate": {
                required: true,
                schema: { type: "string", const: 'Bearer realm="metrics"' },
              },
            },
            content: {
              "application/problem+json": {
                schema: { allOf: [ref("schemas", "Problem"), { properties: { status: { const: 401 } } }] },
              },
            },
          },
          ...common("PayloadTooLarge"),
          ...common("Internal"),
        },
      },
    },
  };
}

const NOT_READY_RESPONSE = {
  description: "Not ready: the database is unreachable or a migration is pending or failed (see checks).",
  headers: { "Retry-After": ref("headers", "Retry-After") },
  content: {
    "application/problem+json": {
      schema: {
        allOf: [
          ref("schemas", "Problem"),
          {
            type: "object",
            required: ["checks"],
            properties: {
              type: { pattern: "/unavailable$" },
              status: { const: 503 },
              checks: { type: "object", additionalProperties: ref("schemas", "HealthIndicator") },
            },
          },
        ],
      },
    },
  },
};

/**
 * The OpenAPI 3.1 document of the public API, built from the shared wire schemas of
 * packages/domain, the pagination bounds and the problem catalogue; `pnpm openapi` writes it to
 * docs/openapi.json and the api serves it at /openapi.json.
 */
export function buildOpenApiDocument(): Json {
  return {
    openapi: "3.1.1",
    info: {
      title: "Community team events and guides",
      version: "1.0.0",
      description:
        "Read-only, paginated JSON lists of the events and guides of the authenticated user's community team. " +
        "Every error is an RFC 9457 problem (application/problem+json). Any method other than GET and HEAD on a " +
        "list path is answered with the MethodNotAllowed response (a declared body over the limit gets PayloadTooLarge " +
        "first; a CORS preflight from an allowed origin gets 204 when CORS_ORIGINS is set); an unknown path with the " +
        `NotFound response (type not-found). Demo token: \`${DEMO_TOKENS.runners.token}\` (Authorize, bearer).`,
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
    },
    servers: [{ url: "/", description: "The server that serves this document" }],
    tags: [
      { name: "events", description: "The team's events" },
      { name: "guides", description: "The team's guides" },
      { name: "operations", description: "Health probes and metrics for the platform" },
    ],
    paths: {
      "/v1/me/community/team/events": listOperations(
        "events",
        "EventList",
        "scheduled_at descending, then id ascending",
      ),
      "/v1/me/community/team/guides": listOperations(
        "guides",
        "GuideList",
        "published_at descending with drafts (null) first, then id ascending",
      ),
      ...operationsPaths(),
    },
    components: {
      schemas: { ...wireJsonSchemas(), HealthIndicator: HEALTH_INDICATOR },
      parameters: {
        page: queryParameter("page", PAGINATION.page, "The page to return, from 1."),
        per_page: queryParameter("per_page", PAGINATION.perPage, "Items per page."),
        "If-None-Match": {
          name: "If-None-Match",
          in: "header",
          required: false,
          description: "An ETag from an earlier response: a 304 with no body when it still matches.",
          schema: { type: "string" },
        },
      },
      headers,
      responses: {
        ...Object.fromEntries(Object.entries(problems).map(([name, p]) => [name, problemResponse(p)])),
        NotReady: NOT_READY_RESPONSE,
      },
      securitySchemes: {
        bearer: {
          type: "http",
          scheme: "bearer",
          description: `An access token (RFC 6750). Opaque demo tokens work too, e.g. ${DEMO_TOKENS.runners.token}.`,
        },
        metricsToken: {
          type: "http",
          scheme: "bearer",
          description: "GET /metrics only, when METRICS_TOKEN is set: that token.",
        },
        oauth2: {
          type: "oauth2",
          description: "Authorization-code flow with PKCE against the built-in authorization server.",
          flows: {
            authorizationCode: {
              authorizationUrl: "/oauth/auth",
              tokenUrl: "/oauth/token",
              refreshUrl: "/oauth/token",
              scopes: { [READ_SCOPE]: "Read the events and guides of your community team" },
            },
          },
        },
      },
    },
  };
}
