import { type ListName, TEAM_LIST_DEFINITIONS, type TeamListDefinition } from "@community/domain";
import { EVENTS_LIST } from "./events.list";
import { GUIDES_LIST } from "./guides.list";
import type { TeamListOf } from "./team-list";

/** Each list's SQL, for each definition of @community/domain: a list without its SQL is a compile error. */
const LIST_SQL: { readonly [D in TeamListDefinition as D["name"]]: TeamListOf<D> } = {
  events: EVENTS_LIST,
  guides: GUIDES_LIST,
};

/** Every team list the service serves, in the order of TEAM_LIST_DEFINITIONS. */
export const TEAM_LISTS: readonly (typeof LIST_SQL)[ListName][] = TEAM_LIST_DEFINITIONS.map(
  (definition: TeamListDefinition) => LIST_SQL[definition.name],
);

export type { ListName };
