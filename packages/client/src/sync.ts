import type { ChangesPage, Collection, SyncOptions, SyncResult, SyncStore } from "./collection.ts";
import { SyncExpiredError, WalkLimitError } from "./errors.ts";

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
