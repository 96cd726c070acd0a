import type {
  ChangesPage,
  Collection,
  LiveSyncOptions,
  LiveSyncResult,
  SyncOptions,
  SyncResult,
  SyncStore,
} from "./collection.ts";
import { SyncExpiredError, WalkLimitError } from "./errors.ts";
import { Backoff, checkWait, isTransient, type LoopEnvironment } from "./follow.ts";
import { pause } from "./pause.ts";

type Limits = { maxPages: number; maxItems: number };

/**
 * Contract 9.3: take the token of "now", walk the whole list, then apply every change since that
 * token (changes made during the walk come back, and an upsert applied twice is harmless). Later
 * syncs apply the changes since the saved token; a 410 starts again from scratch. `fresh` skips
 * the saved token (it has just been answered 410).
 */
export async function sync<T extends { id: string }>(
  collection: Collection<T, unknown>,
  store: SyncStore<T>,
  limits: Limits,
  options: SyncOptions = {},
  fresh = false,
): Promise<SyncResult> {
  const { perPage, signal } = options;
  const saved = fresh ? undefined : await store.getToken();
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
    // A page holds up to 100 items: stop between them, not only between pages.
    signal?.throwIfAborted();
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
      const applied = await apply(store, page, signal);
      result.upserts += applied.upserts;
      result.deletes += applied.deletes;
      token = page.next;
      more = page.hasMore;
    }
    return { ...result, token };
  }
}

/** Applies one page of changes in order, then saves its token (an abort between changes leaves the token as it was). */
async function apply<T extends { id: string }>(
  store: SyncStore<T>,
  page: ChangesPage<T>,
  signal: AbortSignal | undefined,
): Promise<{ upserts: number; deletes: number }> {
  let upserts = 0;
  let deletes = 0;
  for (const change of page.changes) {
    signal?.throwIfAborted();
    if (change.op === "upsert") {
      await store.upsert(change.item);
      upserts++;
    } else {
      await store.remove(change.id);
      deletes++;
    }
  }
  await store.setToken(page.next);
  return { upserts, deletes };
}

/**
 * `sync(store, { live: true, signal })`: a plain sync to catch up, then `follow()` from the token
 * it saved, each page applied and its token saved before the next request. A 410 runs a fresh
 * sync (clear and walk); a transient failure is waited out and the loop resumes from the store's
 * token. The abort resolves the promise with what this run did.
 */
export async function syncLive<T extends { id: string }>(
  collection: Collection<T, unknown>,
  store: SyncStore<T>,
  limits: Limits,
  options: LiveSyncOptions,
  environment: LoopEnvironment,
): Promise<LiveSyncResult> {
  const { signal, perPage, wait, onRetry } = options;
  if (!(signal instanceof AbortSignal)) {
    throw new TypeError("a live sync needs signal, an AbortSignal: aborting it is the only way the sync ends");
  }
  checkWait(wait);
  const result: LiveSyncResult = { full: false, upserts: 0, deletes: 0, token: undefined };
  // The caller's store, counted: an abort in the middle of a walk still reports what was done.
  const counted: SyncStore<T> = {
    getToken: () => store.getToken(),
    setToken: async (token) => {
      await store.setToken(token);
      result.token = token;
    },
    clear: async () => {
      await store.clear();
      result.full = true;
    },
    upsert: async (item) => {
      await store.upsert(item);
      result.upserts++;
    },
    remove: async (id) => {
      await store.remove(id);
      result.deletes++;
    },
  };
  const backoff = new Backoff();
  // A 410 makes the next sync a fresh one; a second 410 before any page was applied is waited
  // out like a failure, so that an api that keeps answering 410 does not get a walk after a walk.
  let expired = false;
  let progressed = true;
  while (!signal.aborted) {
    try {
      const { token } = await sync(collection, counted, limits, { perPage, signal }, expired);
      expired = false;
      for await (const page of collection.follow({ since: token, perPage, wait, signal, onRetry })) {
        await apply(counted, page, signal);
        progressed = true;
        backoff.reset();
      }
    } catch (error) {
      if (signal.aborted) break;
      const gone = error instanceof SyncExpiredError;
      if (gone) expired = true;
      if (gone && progressed) {
        progressed = false;
        continue;
      }
      if (!gone && !isTransient(error)) throw error;
      const delay = backoff.next(error);
      onRetry?.(error, delay);
      await pause(delay, environment.sleep, signal).catch((reason: unknown) => {
        if (!signal.aborted) throw reason;
      });
    }
  }
  return result;
}
