import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import {
  compiledApiForSuite,
  contractEventOrder,
  LARGE_TEAM_EVENTS,
  LARGE_TEAM_TOKEN,
  largeTeamFixture,
  RUNNERS,
  TOKENS,
} from "@community/fixtures/testing";
import type { Event, Guide } from "./index";
import { createClient, type ListPage, NetworkError, NotFoundError, UnauthorizedError } from "./index";

const fixture = largeTeamFixture();

describe("@community/client against the running api", () => {
  const api = compiledApiForSuite("client", fixture);

  it(`walks a team of ${LARGE_TEAM_EVENTS} events with cursors: every event exactly once, in the contract's order`, async () => {
    const client = createClient({ baseUrl: api.baseUrl, token: LARGE_TEAM_TOKEN });
    const modes: string[] = [];
    const ids: string[] = [];
    for await (const event of client.events.all({ onPage: (page) => modes.push(page.mode) })) ids.push(event.id);
    const expected = contractEventOrder(fixture.events.filter((e) => e.team_id === "team_large"));
    expect(expected).toHaveLength(LARGE_TEAM_EVENTS);
    expect(ids).toEqual(expected);
    expect(modes).toEqual(Array.from({ length: 13 }, () => "cursor"));
  });

  it("walks the guides with a small page size in the contract's order (drafts first)", async () => {
    const client = createClient({ baseUrl: api.baseUrl, token: TOKENS.runner });
    const guides: Guide[] = [];
    for await (const guide of client.guides.all({ perPage: 5 })) guides.push(guide);
    const expected = fixture.guides
      .filter((g) => g.team_id === RUNNERS)
      .sort((a, b) => {
        if (a.published_at !== b.published_at) {
          if (a.published_at === null) return -1;
          if (b.published_at === null) return 1;
          return a.published_at < b.published_at ? 1 : -1;
        }
        return a.id < b.id ? -1 : 1;
      })
      .map((g) => g.id);
    expect(guides.map((g) => g.id)).toEqual(expected);
  });

  it("lists one page with its pagination, total and links, then revalidates it with If-None-Match", async () => {
    const client = createClient({ baseUrl: api.baseUrl, token: TOKENS.runner });
    const page = (await client.listEvents({ page: 2, perPage: 10 })) as ListPage<Event>;
    expect(page.notModified).toBe(false);
    expect(page.items).toHaveLength(10);
    expect(page.pagination).toEqual({ current_page: 2, per_page: 10, total_pages: 3 });
    expect(page.totalCount).toBe(23);
    expect(page.links.next).toBe(`${api.baseUrl}/v1/me/community/team/events?page=3&per_page=10`);
    expect(page.etag).toBeDefined();

    expect(await client.listEvents({ page: 2, perPage: 10, ifNoneMatch: page.etag })).toEqual({
      notModified: true,
      etag: page.etag,
    });
    expect((await client.listEvents({ page: 1, perPage: 10, ifNoneMatch: page.etag })).notModified).toBe(false);
  });

  it("throws typed errors that carry the problem", async () => {
    const unknown = createClient({ baseUrl: api.baseUrl, token: "not-a-token" });
    const unauthorized = await unknown.listGuides().catch((e: unknown) => e);
    expect(unauthorized).toBeInstanceOf(UnauthorizedError);
    expect((unauthorized as UnauthorizedError).problem?.type).toMatch(/\/unauthorized$/);

    const noTeam = await createClient({ baseUrl: api.baseUrl, token: TOKENS.noTeam })
      .listEvents()
      .catch((e: unknown) => e);
    expect(noTeam).toBeInstanceOf(NotFoundError);
    expect((noTeam as NotFoundError).problem?.type).toMatch(/\/no-community-team$/);
  });

  it("creates, lists, rotates and deletes calendar feeds (calendarFeeds)", async () => {
    const client = createClient({ baseUrl: api.baseUrl, token: TOKENS.runner });
    const created = await client.calendarFeeds.create({ name: "Phone" });
    expect(created).toMatchObject({ name: "Phone", last_fetched_at: null });
    expect(created.url).toMatch(/\/v1\/calendar-feeds\/cal_[A-Za-z0-9_-]{43}\.ics$/);
    expect((await fetch(created.url.replace(/^https?:\/\/[^/]+/, api.baseUrl))).status).toBe(200);
    expect((await client.calendarFeeds.list()).map((feed) => feed.id)).toContain(created.id);
    const rotated = await client.calendarFeeds.rotate(created.id);
    expect(rotated.id).toBe(created.id);
    expect(rotated.url).not.toBe(created.url);
    await client.calendarFeeds.delete(created.id);
    expect((await client.calendarFeeds.list()).map((feed) => feed.id)).not.toContain(created.id);
    const gone = await client.calendarFeeds.rotate(created.id).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(NotFoundError);
    expect((gone as NotFoundError).problem?.type).toMatch(/\/calendar-feed-not-found$/);
  });

  it("reports a closed port as a network error", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const error = await createClient({ baseUrl: `http://127.0.0.1:${port}`, token: TOKENS.runner })
      .listEvents()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
  });
});
