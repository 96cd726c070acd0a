import type { ProblemName } from "./problem-catalogue";
import { problemRefs } from "./problem-responses";

/** Building blocks of the paths of the caller's own resources (webhooks, calendar feeds). */
export type Json = Record<string, unknown>;

export const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const jsonContent = (name: string) => ({ "application/json": { schema: schemaRef(name) } });

/** What any request that carries a bearer token may be answered, besides its operation's own problems. */
export const PROBLEMS_OF_A_BEARER_REQUEST: ProblemName[] = [
  "Unauthorized",
  "InsufficientScope",
  "NotAcceptable",
  "PayloadTooLarge",
  "RequestTimeout",
  "RequestHeaderTooLarge",
  "RateLimited",
  "Internal",
  "Unavailable",
];

/** A string path parameter that names one of the caller's resources. */
export const pathParameter = (name: string, description: string) => ({
  name,
  in: "path",
  required: true,
  description,
  schema: { type: "string" },
});

/**
 * The operation builder of one resource family: every operation carries its tag and its scope, and
 * may answer a bearer request's problems and the family's besides its own.
 */
export function operationBuilder(tag: string, scope: string, problemsOfTheFamily: ProblemName[] = []) {
  return (fields: Json, problems: ProblemName[]): Json => ({
    tags: [tag],
    security: [{ bearer: [] }, { oauth2: [scope] }],
    ...fields,
    responses: {
      ...(fields.responses as Json),
      ...problemRefs([...problems, ...problemsOfTheFamily, ...PROBLEMS_OF_A_BEARER_REQUEST]),
    },
  });
}

/** A 200 answer with a JSON body of the named schema. */
export const okJson = (description: string, schema: string) => ({
  "200": { description, content: jsonContent(schema) },
});

/** GET on a collection of the caller's resources: all of them, oldest first, secrets withheld. */
export const listOperation = (operationId: string, summary: string, ok: { description: string; schema: string }) => ({
  operationId,
  summary,
  description: "Oldest first; never a secret.",
  responses: okJson(ok.description, ok.schema),
});
