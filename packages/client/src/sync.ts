import type { ChangesPage, Collection } from "./client.ts";
import { SyncExpiredError, WalkLimitError } from "./errors.ts";

type MaybePromise<T> = T | Promise<T>;

/** A caller's copy of one list, kept current by `sync()`. */
export interface SyncStore<T> {
  /** The token saved by the last sync; undefined before the first. */
  getToken(): MaybePromise<string | undefined>;
  /** Saved after a complete full walk and after each page of changes has been applied. */
  setToken(token: string): MaybePromise<void>;
  /** Forget every item: a full walk follows (the first sync, or after 410 sync-expired). */
  clear(): MaybePromise<void>;
  /** Insert or replace the item with this id (applying one twice is harmless). */
  upsert(item: T & { id: string }): MaybePromise<void>;
  remove(id: string): MaybePromise<void>;
}

export interface SyncOptions {
  perPage?: number;
  signal?: AbortSignal;
}

export interface SyncResult {
  /** True when the store was rebuilt by a full walk (first sync or expired token). */
  full: boolean;
  upserts: number;
  deletes: number;
  /** The token now saved in the store. */
  token: string;
}

/**
 * Contract 9.3: take the token of "now", walk the whole list, then apply every change since that
 * token (changes made during the walk come back, and an upsert applied twice is harmless). Later
 * syncs apply the changes since the saved token; a 410 starts again from scratch.
 */
export async function sync<T extends { id: string }>(
  collection: Collection<T, unknown>,
  store: SyncStore<T>,
  limits: { maxPages: number; maxItems: number },
  options: SyncOptions = {},
): Promise<SyncResult> {
  const { perPage, signal } = options;
  const saved = await store.getToken();
  if (saved !== undefined) {
    try {
      return await applyChanges(saved, { full: false, upserts: 0, deletes: 0 });
    } catch (error) {
      if (!(error instanceof SyncExpiredError)) throw error;
    }
  }
  const { next: start } = await collection.changes({ signal });
  await store.clear();
  const result = { full: true, upserts: 0, deletes: 0 };
  for await (const item of collection.all({ perPage, signal })) {
    await store.upsert(item);
    result.upserts++;
  }
  await store.setToken(start);
  return applyChanges(start, result);

  async function applyChanges(since: string, result: Omit<SyncResult, "token">): Promise<SyncResult> {
    let token = since;
    let pages = 0;
    let entries = 0;
    for (let more = true; more; ) {
      if (pages++ >= limits.maxPages) throw new WalkLimitError("maxPages", limits.maxPages, "changes");
      const page: ChangesPage<T> = await collection.changes({ since: token, perPage, signal });
      entries += page.changes.length;
      if (entries > limits.maxItems) throw new WalkLimitError("maxItems", limits.maxItems, "changes");
      for (const change of page.changes) {
        if (change.op === "upsert") {
          await store.upsert(change.item);
          result.upserts++;
        } else {
          await store.remove(change.id);
          result.deletes++;
        }
      }
      token = page.next;
      await store.setToken(token);
      more = page.hasMore;
    }
    return { ...result, token };
  }
}
