import type { SyncStore } from "../collection";
import type { Event } from "../wire";

/** A Map-backed store that records what sync() did to it. */
export class MapStore implements SyncStore<Event> {
  readonly items = new Map<string, Event>();
  token: string | undefined;
  clears = 0;
  /** Set: upserts throw it (a store that fails). */
  failUpsert?: Error;
  /** Called after each upsert. */
  onUpsert?: () => void;
  getToken = () => this.token;
  setToken = (token: string) => {
    this.token = token;
  };
  clear = () => {
    this.items.clear();
    this.clears++;
  };
  upsert = (item: Event) => {
    if (this.failUpsert) throw this.failUpsert;
    this.items.set(item.id, item);
    this.onUpsert?.();
  };
  remove = (id: string) => {
    this.items.delete(id);
  };
}

/** Events in id order, to compare two copies. */
export const sortedById = (items: Iterable<Event>) => [...items].sort((a, b) => (a.id < b.id ? -1 : 1));
