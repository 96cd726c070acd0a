import { wireEvent } from "@community/domain/testing";
import { FakeCommunityApi, until } from "@community/fixtures/testing";
import { createClient } from "./client";
import type { LiveSyncResult } from "./collection";
import { NetworkError, RateLimitedError, UnauthorizedError } from "./errors";
import { MapStore, sortedById } from "./testing/map-store";
import type { Event } from "./wire";

/**
 * `sync(store, { live: true })` against the fake of contract section 9, behind a fetch that plays
 * the long poll of 10.1: a request with `wait` is held until the test releases it (as a commit or
 * the end of the wait would) or its signal aborts; answers can be put before it (429, a network
 * failure, ...).
 */
const TOKEN = "fake-token";

class LongPollFetch {
  readonly urls: URL[] = [];
  readonly aborted: URL[] = [];
  /** Answered instead of the next requests, in order. */
  readonly injected: Array<Response | Error> = [];
  private held: Array<() => void> = [];

  readonly fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(String(input));
    this.urls.push(url);
    const injected = this.injected.shift();
    if (injected instanceof Error) throw injected;
    if (injected !== undefined) return injected;
    if (url.searchParams.has("wait")) await this.hold(url, init?.signal as AbortSignal);
    return globalThis.fetch(input, init);
  }) as typeof globalThis.fetch;

  get holding(): number {
    return this.held.length;
  }

  /** Lets every held request through to the fake, which answers what changed (or nothing). */
  release(): void {
    for (const go of this.held.splice(0)) go();
  }

  private hold(url: URL, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const go = () => {
        signal.removeEventListener("abort", stop);
        resolve();
      };
      const stop = () => {
        this.held = this.held.filter((g) => g !== go);
        this.aborted.push(url);
        reject(signal.reason);
      };
      signal.addEventListener("abort", stop, { once: true });
      this.held.push(go);
    });
  }
}

describe("sync(store, { live: true }) against a fake of contract sections 9 and 10.1", () => {
  let api: FakeCommunityApi;
  let poll: LongPollFetch;
  let sleeps: number[];
  let controller: AbortController;
  let store: MapStore;

  const client = (options: { maxRetries?: number } = {}) =>
    createClient({
      baseUrl: api.url,
      token: TOKEN,
      fetch: poll.fetch,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
      ...options,
    });
  const live = (options: { maxRetries?: number; onRetry?: (error: unknown, ms: number) => void } = {}) =>
    client(options).events.sync(store, { live: true, signal: controller.signal, wait: 20, onRetry: options.onRetry });
  const equalsTheList = () =>
    expect(sortedById(store.items.values())).toEqual(sortedById(api.items.events.values() as Iterable<Event>));

  beforeEach(async () => {
    api = await FakeCommunityApi.start(TOKEN);
    for (let i = 10; i < 15; i++) api.upsert("events", wireEvent({ id: `ev_${i}` }));
    poll = new LongPollFetch();
    sleeps = [];
    controller = new AbortController();
    store = new MapStore();
  });
  afterEach(async () => {
    controller.abort();
    await api.close();
  });

  it("catches up by a full walk, applies each change as it commits, and resolves when aborted", async () => {
    const running = live();
    await until(() => poll.holding === 1, "the first long poll is held", 5_000, 5);
    equalsTheList();
    const held = poll.urls.at(-1);
    expect(held?.searchParams.get("wait")).toBe("20");
    expect(held?.searchParams.get("since")).toBe(store.token);

    api.upsert("events", wireEvent({ id: "ev_10", name: "renamed" }));
    api.remove("events", "ev_11");
    poll.release();
    await until(
      () => store.items.get("ev_10")?.name === "renamed" && poll.holding === 1,
      "the change is applied",
      5_000,
      5,
    );
    equalsTheList();

    // The wait runs out with nothing new: asked again from the token it answered with.
    const before = poll.urls.length;
    poll.release();
    await until(() => poll.urls.length > before && poll.holding === 1, "the next long poll is held", 5_000, 5);

    const requests = poll.urls.length;
    const started = Date.now();
    controller.abort();
    const result: LiveSyncResult = await running;
    expect(Date.now() - started).toBeLessThan(500);
    expect(result).toEqual({ full: true, upserts: 6, deletes: 1, token: store.token });
    expect(poll.aborted).toHaveLength(1);
    expect(poll.urls).toHaveLength(requests);
    expect(store.clears).toBe(1);
  });

  it("resumes from the saved token without a walk when the store already has one", async () => {
    await client().events.sync(store);
    api.upsert("events", wireEvent({ id: "ev_20" }));
    const walks = () => poll.urls.filter((u) => u.searchParams.has("cursor")).length;
    const walked = walks();
    const running = live();
    await until(
      () => poll.holding === 1 && store.items.has("ev_20"),
      "the change is applied and a poll held",
      5_000,
      5,
    );
    expect(walks()).toBe(walked);
    controller.abort();
    expect(await running).toMatchObject({ full: false, upserts: 1, deletes: 0 });
  });

  it("clears the store and walks again on 410, then goes on following", async () => {
    const running = live();
    await until(() => poll.holding === 1, "the first long poll is held", 5_000, 5);
    const expired = store.token;
    const asked = poll.urls.length - 1; // from the held request on
    api.expireTokens("events");
    api.remove("events", "ev_12");
    api.upsert("events", wireEvent({ id: "ev_30" }));
    store.items.set("stale", wireEvent({ id: "stale" }));
    poll.release();
    await until(() => store.clears === 2 && poll.holding === 1, "the store is walked again and a poll held", 5_000, 5);
    equalsTheList();
    // The token answered 410 is not asked again: the restart starts from the token of now.
    expect(poll.urls.slice(asked).filter((u) => u.searchParams.get("since") === expired)).toHaveLength(1);

    api.upsert("events", wireEvent({ id: "ev_31" }));
    poll.release();
    await until(() => store.items.has("ev_31"), "a change after the new walk is applied", 5_000, 5);
    controller.abort();
    expect(await running).toMatchObject({ full: true });
    expect(sleeps).toEqual([]);
  });

  it("waits out a 429 for its Retry-After and a network failure with a jittered backoff, then goes on", async () => {
    jest.spyOn(Math, "random").mockReturnValue(0);
    const retries: Array<[string, number]> = [];
    const running = live({ maxRetries: 0, onRetry: (error, ms) => retries.push([(error as Error).name, ms]) });
    await until(() => poll.holding === 1, "the first long poll is held", 5_000, 5);
    poll.injected.push(
      new Response(JSON.stringify({ detail: "four held already" }), { status: 429, headers: { "retry-after": "3" } }),
      new TypeError("fetch failed", { cause: { code: "ECONNREFUSED" } }),
      new TypeError("fetch failed", { cause: { code: "ECONNREFUSED" } }),
    );
    api.upsert("events", wireEvent({ id: "ev_40" }));
    poll.release(); // the held poll answers with ev_40; the next three tries fail
    await until(() => poll.holding === 1 && retries.length === 3, "the retries are done and a poll held", 5_000, 5);
    expect(retries).toEqual([
      [RateLimitedError.name, 3000],
      [NetworkError.name, 1000],
      [NetworkError.name, 2000],
    ]);
    // Failures in a row, the 429 included, double the backoff: half of 2 s and of 4 s at the lowest draw.
    expect(sleeps).toEqual([3000, 1000, 2000]);
    api.upsert("events", wireEvent({ id: "ev_41" }));
    poll.release();
    await until(() => store.items.has("ev_41"), "the change after the failures is applied", 5_000, 5);
    equalsTheList();
    controller.abort();
    await running;
    jest.restoreAllMocks();
  });

  it("retries a network failure during the catch-up too, rather than rejecting", async () => {
    poll.injected.push(new TypeError("fetch failed", { cause: { code: "ECONNREFUSED" } }));
    const running = live();
    await until(() => poll.holding === 1, "a long poll is held after the failed start", 5_000, 5);
    equalsTheList();
    expect(sleeps).toHaveLength(1);
    controller.abort();
    expect(await running).toMatchObject({ full: true, upserts: 5 });
  });

  it("rejects on a failure that retrying cannot mend: a 401, or the store's own error", async () => {
    const running = live();
    await until(() => poll.holding === 1, "the first long poll is held", 5_000, 5);
    poll.injected.push(
      new Response(
        JSON.stringify({ type: "x", title: "Unauthorized", status: 401, detail: "revoked", instance: "/" }),
        {
          status: 401,
        },
      ),
    );
    poll.release(); // the held request itself goes through; the one after it gets the 401
    api.upsert("events", wireEvent({ id: "ev_50" }));
    poll.release();
    await expect(running).rejects.toBeInstanceOf(UnauthorizedError);

    const broken = new Error("disk full");
    store.failUpsert = broken;
    api.upsert("events", wireEvent({ id: "ev_51" }));
    const again = live();
    await expect(again).rejects.toBe(broken);
  });

  it("resolves when aborted in the middle of the first walk, with no token saved", async () => {
    let upserts = 0;
    const upsert = store.upsert;
    store.upsert = (item) => {
      upsert(item);
      if (++upserts === 2) controller.abort();
    };
    const result = await live();
    expect(result).toEqual({ full: true, upserts: 2, deletes: 0, token: undefined });
    expect(store.token).toBeUndefined();
  });

  it("needs a signal: without one a live sync could never end", async () => {
    const sync = client().events.sync as (store: MapStore, options: unknown) => Promise<unknown>;
    await expect(sync(store, { live: true })).rejects.toThrow(/a live sync needs signal, an AbortSignal/);
    expect(poll.urls).toEqual([]);
  });
});
