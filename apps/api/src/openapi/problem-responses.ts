import type { ProblemType } from "../common/problems";
import { PROBLEM_CATALOGUE, type ProblemName } from "./problem-catalogue";

type Json = Record<string, unknown>;

/** The problem base URL of the examples (PROBLEM_BASE_URL's default). */
const EXAMPLE_BASE = "https://community-team.dev/problems";
const EXAMPLE_INSTANCE = "/v1/me/community/team/events";

/**
 * The OpenAPI response of one problem of the catalogue: the Problem wire schema narrowed to its
 * type and status (and the members it always carries), its headers, and an example body.
 */
function problemResponse(problem: ProblemType): Json {
  const { type, status, title, docs, headers, requires, example } = problem;
  const schema = {
    allOf: [
      { $ref: "#/components/schemas/Problem" },
      {
        type: "object",
        properties: {
          // The prefix is configurable (PROBLEM_BASE_URL); the last segment is fixed.
          type: { pattern: `/${type}$` },
          status: { const: status },
        },
        ...(requires === undefined ? {} : { required: [...requires] }),
      },
    ],
  };
  return {
    description: docs,
    ...(headers === undefined
      ? {}
      : {
          headers: Object.fromEntries(
            Object.entries(headers).map(([name, header]) => [name, { ...header, required: true }]),
          ),
        }),
    content: {
      "application/problem+json": {
        schema,
        example: { type: `${EXAMPLE_BASE}/${type}`, title, status, instance: EXAMPLE_INSTANCE, ...example },
      },
    },
  };
}

/** `components.responses`: one response per named problem, under its catalogue name. */
export function problemComponents(names: Iterable<ProblemName>): Record<string, Json> {
  return Object.fromEntries([...new Set(names)].sort().map((name) => [name, problemResponse(PROBLEM_CATALOGUE[name])]));
}

/** An operation's error responses by status, each a reference to its problem's component. */
export function problemRefs(names: readonly ProblemName[]): Record<string, Json> {
  const byStatus: Record<string, Json> = {};
  for (const name of names) {
    const status = String(PROBLEM_CATALOGUE[name].status);
    if (byStatus[status] !== undefined) throw new Error(`two problems of one operation share the status ${status}`);
    byStatus[status] = { $ref: `#/components/responses/${name}` };
  }
  return byStatus;
}
