import { CLIMBERS, compiledApiForSuite, contractFixture, TOKENS, until } from "@community/fixtures/testing";
import { createClient } from "./client";
import { MapStore } from "./testing/map-store";
import type { Event } from "./wire";

const fixture = contractFixture();
const runner = fixture.access_tokens.find((t) => t.token === TOKENS.runner)?.user_id ?? "";
/** Far longer than a change takes to arrive: a copy that needed it has polled, not been woken. */
const WAIT = 30;

/**
 * A live copy (`sync(store, { live: true })`) against the compiled api: a write made with SQL on
 * a connection of the test's own reaches the store within moments, over a request that was held,
 * not by polling; a change of team (410) rebuilds the copy; an abort ends it at once.
 */
describe("@community/client live sync against the running api", () => {
  const api = compiledApiForSuite("client_live_sync", fixture);

  const store = new MapStore();
  const copy = store.items;

  /** The client's requests, each with the time it was answered (or failed). */
  const requests: Array<{ url: URL; sent: number; answered?: number }> = [];
  const countingFetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const request: { url: URL; sent: number; answered?: number } = { url: new URL(String(input)), sent: Date.now() };
    requests.push(request);
    try {
      return await fetch(input, init);
    } finally {
      request.answered = Date.now();
    }
  }) as typeof fetch;
  const held = () => requests.filter((r) => r.answered === undefined && r.url.searchParams.has("wait"));

  const freshWalk = async () => {
    const events: Event[] = [];
    for await (const event of createClient({ baseUrl: api.baseUrl, token: TOKENS.runner }).events.all())
      events.push(event);
    return events;
  };
  const sorted = (events: Iterable<Event>) => [...events].sort((a, b) => (a.id < b.id ? -1 : 1));

  it("applies a write made with SQL on another connection within moments, over one held request", async () => {
    const controller = new AbortController();
    const client = createClient({ baseUrl: api.baseUrl, token: TOKENS.runner, fetch: countingFetch });
    const running = client.events.sync(store, { live: true, signal: controller.signal, wait: WAIT });
    await until(() => held().length === 1, "the copy is caught up and a long poll is held");
    expect(sorted(copy.values())).toEqual(sorted(await freshWalk()));

    const [renamed] = [...copy.keys()].sort();
    const before = requests.length;
    const written = Date.now();
    await api.database.prisma.$executeRawUnsafe("UPDATE events SET name = $1 WHERE id = $2", "Renamed live", renamed);
    await until(() => copy.get(renamed ?? "")?.name === "Renamed live", "the write reaches the copy");
    const arrived = Date.now() - written;

    // The held request answered with the change, and one more is held: no polling in between.
    await until(() => held().length === 1, "the next long poll is held");
    expect(requests.length - before).toBeLessThanOrEqual(1);
    expect(arrived).toBeLessThan(5_000);
    expect(
      requests.filter((r) => r.url.searchParams.has("wait")).every((r) => r.url.searchParams.get("wait") === "30"),
    ).toBe(true);

    const started = Date.now();
    controller.abort();
    const result = await running;
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(result).toMatchObject({ full: true, upserts: copy.size + 1, deletes: 0, token: store.token });
    expect(sorted(copy.values())).toEqual(sorted(await freshWalk()));
  }, 60_000);

  it("rebuilds the copy when its token predates a change of team (410), and follows the new team", async () => {
    const controller = new AbortController();
    const client = createClient({ baseUrl: api.baseUrl, token: TOKENS.runner, fetch: countingFetch });
    // A short wait: the team's change is not a change of the list, so only the wait's end answers the held request.
    const running = client.events.sync(store, { live: true, signal: controller.signal, wait: 1 });
    await until(() => held().length === 1, "a long poll is held");
    const climberIds = fixture.events
      .filter((e) => e.team_id === CLIMBERS)
      .map((e) => e.id)
      .sort()
      .join();
    expect(climberIds).not.toBe("");
    const gone = requests.length;
    await api.database.prisma.user.update({ where: { id: runner }, data: { teamId: CLIMBERS } });
    await until(() => [...copy.keys()].sort().join() === climberIds && held().length === 1, "the copy is rebuilt");
    expect(requests.slice(gone).some((r) => r.url.searchParams.has("cursor"))).toBe(true);
    expect(sorted(copy.values())).toEqual(sorted(await freshWalk()));
    controller.abort();
    expect(await running).toMatchObject({ full: true });
  }, 60_000);
});
