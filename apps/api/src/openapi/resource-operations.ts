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
 * may answer the family's problems besides its own.
 */
export function resourceOperations(tag: string, scope: string, problemsOfEvery: ProblemName[]) {
  return (fields: Json, problems: ProblemName[]): Json => ({
    tags: [tag],
    security: [{ bearer: [] }, { oauth2: [scope] }],
    ...fields,
    responses: { ...(fields.responses as Json), ...problemRefs([...problems, ...problemsOfEvery]) },
  });
}
