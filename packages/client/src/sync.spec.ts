import { wireEvent } from "@community/domain/testing";
import { FakeCommunityApi } from "@community/fixtures/testing";
import { createClient } from "./client";
import { SyncExpiredError } from "./errors";
import { MapStore, sortedById } from "./testing/map-store";
import type { Event } from "./wire";

const TOKEN = "fake-token";

describe("cursor walks, filters and sync against a fake of contract section 9", () => {
  let api: FakeCommunityApi;
  const client = () => createClient({ baseUrl: api.url, token: TOKEN });

  beforeEach(async () => {
    api = await FakeCommunityApi.start(TOKEN);
    for (let i = 10; i < 35; i++) api.upsert("events", wireEvent({ id: `ev_${i}` }));
  });
  afterEach(async () => {
    await api.close();
  });

  it("walks with cursors by default: ?cursor= first, then each page's next_cursor, every item once", async () => {
    const ids: string[] = [];
    const pages: Array<string | null> = [];
    for await (const event of client().events.all({
      perPage: 10,
      onPage: (page) => pages.push(page.mode === "cursor" ? page.nextCursor : "page mode"),
    })) {
      ids.push(event.id);
    }
    expect(ids).toEqual(Array.from({ length: 25 }, (_, i) => `ev_${i + 10}`));
    expect(pages).toHaveLength(3);
    expect(pages.at(-1)).toBeNull();
    const queries = api.requests.map((r) => new URL(r.url, api.url).searchParams);
    expect(queries.map((q) => q.get("cursor"))).toEqual(["", pages[0], pages[1]]);
    expect(queries.every((q) => q.get("per_page") === "10" && !q.has("page"))).toBe(true);
  });

  it("sends the filters of 9.2 in both modes, and keeps them on every page of a walk", async () => {
    api.upsert(
      "events",
      wireEvent({ id: "ev_50", canceled_at: "2026-02-01T00:00:00Z", scheduled_at: "2026-05-01T10:00:00Z" }),
      wireEvent({ id: "ev_51", canceled_at: "2026-02-01T00:00:00Z", scheduled_at: "2026-07-01T10:00:00Z" }),
    );
    const filters = {
      status: ["canceled", "live"] as const,
      scheduledFrom: new Date("2026-04-01T00:00:00Z"),
      scheduledTo: "2026-06-01T00:00:00+02:00",
    };
    const walked: string[] = [];
    for await (const event of client().events.all({ perPage: 1, filters })) walked.push(event.id);
    expect(walked).toEqual(["ev_50"]);

    const page = await client().listEvents({ page: 1, filters });
    expect(page.notModified === false && page.items.map((e) => e.id)).toEqual(["ev_50"]);
    for (const request of api.requests) {
      const query = new URL(request.url, api.url).searchParams;
      expect(query.get("status")).toBe("canceled,live");
      expect(query.get("scheduled_from")).toBe("2026-04-01T00:00:00.000Z");
      expect(query.get("scheduled_to")).toBe("2026-06-01T00:00:00+02:00");
    }

    await client().listGuides({ filters: { status: ["draft"], publishedFrom: "2026-01-01T00:00:00Z" } });
    const guideQuery = new URL(api.requests.at(-1)?.url ?? "", api.url).searchParams;
    expect(Object.fromEntries(guideQuery)).toEqual({ status: "draft", published_from: "2026-01-01T00:00:00Z" });
  });

  it("reads a page of changes: the token of now without since, then upserts and deletes", async () => {
    const { changes, next, hasMore } = await client().events.changes();
    expect(changes).toEqual([]);
    expect(hasMore).toBe(false);
    api.upsert("events", wireEvent({ id: "ev_10", name: "renamed" }));
    api.remove("events", "ev_11");
    const page = await client().events.changes({ since: next });
    expect(page.changes).toEqual([
      { op: "upsert", id: "ev_10", item: wireEvent({ id: "ev_10", name: "renamed" }) },
      { op: "delete", id: "ev_11" },
    ]);
  });

  it("keeps a store equal to the list: a full walk, then the changes since its token, then again", async () => {
    const store = new MapStore();
    const first = await client().events.sync(store, { perPage: 7 });
    expect(first).toMatchObject({ full: true, upserts: 25, deletes: 0 });
    expect(sortedById(store.items.values())).toEqual(sortedById(api.items.events.values() as Iterable<Event>));

    api.upsert("events", wireEvent({ id: "ev_10", name: "renamed" }));
    api.remove("events", "ev_11");
    api.upsert("events", wireEvent({ id: "ev_99" }));
    const perPage = 2; // three changes: two pages, has_more on the first
    const second = await client().events.sync(store, { perPage });
    expect(second).toMatchObject({ full: false, upserts: 2, deletes: 1 });
    expect(store.clears).toBe(1);
    expect(sortedById(store.items.values())).toEqual(sortedById(api.items.events.values() as Iterable<Event>));
    expect(store.token).toBe(second.token);

    const quiet = await client().events.sync(store);
    expect(quiet).toMatchObject({ full: false, upserts: 0, deletes: 0 });
  });

  it("brings back what changed during the full walk (changes since the token taken before it)", async () => {
    const store = new MapStore();
    let changed = false;
    store.onUpsert = () => {
      if (changed) return;
      changed = true;
      // Behind the walk's position and ahead of it: the walk misses one and sees the other.
      api.upsert("events", wireEvent({ id: "ev_00" }));
      api.remove("events", "ev_34");
    };
    await client().events.sync(store, { perPage: 5 });
    expect(sortedById(store.items.values())).toEqual(sortedById(api.items.events.values() as Iterable<Event>));
    expect(store.items.has("ev_00")).toBe(true);
    expect(store.items.has("ev_34")).toBe(false);
  });

  it("starts again from scratch when the token has expired (410 sync-expired)", async () => {
    const store = new MapStore();
    await client().events.sync(store);
    api.expireTokens("events");
    api.remove("events", "ev_12");
    await expect(client().events.changes({ since: store.token })).rejects.toBeInstanceOf(SyncExpiredError);
    store.items.set("stale", wireEvent({ id: "stale" }));

    const again = await client().events.sync(store);
    expect(again).toMatchObject({ full: true, upserts: 24 });
    expect(store.clears).toBe(2);
    expect(sortedById(store.items.values())).toEqual(sortedById(api.items.events.values() as Iterable<Event>));
  });
});
