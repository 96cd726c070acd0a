import type { z } from "zod";
import { eventSchema, eventWireSchemas, guideSchema, guideWireSchemas } from "./wire-schemas";

/** Where the team lists live (contract section 1): each list is a segment below it. */
export const TEAM_LIST_BASE_PATH = "/v1/me/community/team";

/**
 * A team list as the wire knows it, declared once: its name (the path segment, and the list's
 * name in the change log, the webhooks and team_list_stats), its item's wire schema, and its
 * filters (contract 9.2): the status words, in canonical order, and the query parameters of its
 * time window. `packages/db` adds the SQL of each (`@community/db/lists`); the api's DTOs,
 * controllers and OpenAPI document, the webhooks, the fixture loader and the CLI read the rest here.
 */
export interface ListDefinition<
  Name extends string = string,
  Item = unknown,
  Status extends string = string,
  From extends string = string,
  To extends string = string,
> {
  name: Name;
  /** `/v1/me/community/team/<name>`. */
  path: `${typeof TEAM_LIST_BASE_PATH}/${Name}`;
  /** The item's schema name (`Event`); its envelopes are `<schema>List`, `<schema>CursorList`, `<schema>Changes`. */
  schema: string;
  /** The item's wire schema (zod), whose output is the item type. */
  item: z.ZodType<Item>;
  /** The wire schemas of the list's envelopes (registered in wireRegistry). */
  envelopes: { page: z.ZodType; cursorPage: z.ZodType; change: z.ZodType; changes: z.ZodType };
  /** The words of the `status` filter, in the order a canonical filter lists them. */
  status: readonly Status[];
  /** The query parameters of the half-open time window `from <= t < to`. */
  window: { from: From; to: To };
  /** The list's order in words, for the documentation. */
  order: string;
}

function defineList<
  const Name extends string,
  Item,
  const Status extends string,
  const From extends string,
  const To extends string,
>(
  definition: Omit<ListDefinition<Name, Item, Status, From, To>, "path">,
): ListDefinition<Name, Item, Status, From, To> {
  return { ...definition, path: `${TEAM_LIST_BASE_PATH}/${definition.name}` };
}

export const EVENTS = defineList({
  name: "events",
  schema: "Event",
  item: eventSchema,
  envelopes: eventWireSchemas,
  status: ["scheduled", "live", "completed", "canceled"],
  window: { from: "scheduled_from", to: "scheduled_to" },
  order: "scheduled_at descending, then id ascending",
});

export const GUIDES = defineList({
  name: "guides",
  schema: "Guide",
  item: guideSchema,
  envelopes: guideWireSchemas,
  status: ["draft", "published"],
  window: { from: "published_from", to: "published_to" },
  order: "published_at descending with drafts (null) first, then id ascending",
});

/** Every team list the service serves, in the order the documentation shows them. */
export const TEAM_LIST_DEFINITIONS = [EVENTS, GUIDES] as const;

export type TeamListDefinition = (typeof TEAM_LIST_DEFINITIONS)[number];
export type ListName = TeamListDefinition["name"];
export const LIST_NAMES: readonly ListName[] = TEAM_LIST_DEFINITIONS.map((definition) => definition.name);

/** The item type of a list definition (`Event` of EVENTS). */
export type ItemOf<D> = D extends ListDefinition<string, infer Item> ? Item : never;
/** The status words of a list definition. */
export type StatusOf<D> = D extends ListDefinition<string, unknown, infer Status> ? Status : never;

/** The type of a webhook notice that a list changed (contract 10.2). */
export type ListChangedNotice = `${ListName}.changed`;
export const LIST_CHANGED_NOTICES: readonly ListChangedNotice[] = LIST_NAMES.map((name) => `${name}.changed` as const);
