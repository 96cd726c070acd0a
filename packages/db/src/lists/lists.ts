import { EVENTS_LIST } from "./events.list";
import { GUIDES_LIST } from "./guides.list";

/** Every team list the service serves; adding a list means adding its declaration here. */
export const TEAM_LISTS = [EVENTS_LIST, GUIDES_LIST] as const;

export type ListName = (typeof TEAM_LISTS)[number]["list"];
