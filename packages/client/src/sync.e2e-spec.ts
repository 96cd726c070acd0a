import { CLIMBERS, compiledApiForSuite, contractFixture, TOKENS } from "@community/fixtures/testing";
import { createClient } from "./client";
import { MapStore } from "./testing/map-store";
import type { Event } from "./wire";

const fixture = contractFixture();
const runner = fixture.access_tokens.find((t) => t.token === TOKENS.runner)?.user_id ?? "";

/** sync() against the compiled api: a copy kept by the feed equals a fresh walk after writes by SQL. */
describe("@community/client sync against the running api", () => {
  const api = compiledApiForSuite("client_sync", fixture);

  const store = new MapStore();
  const copy = store.items;

  const freshWalk = async () => {
    const events: Event[] = [];
    for await (const event of createClient({ baseUrl: api.baseUrl, token: TOKENS.runner }).events.all({ perPage: 7 })) {
      events.push(event);
    }
    return events;
  };
  const sorted = (events: Iterable<Event>) => [...events].sort((a, b) => (a.id < b.id ? -1 : 1));

  it("builds the copy by a full walk, then keeps it equal to a fresh walk through the changes", async () => {
    const client = createClient({ baseUrl: api.baseUrl, token: TOKENS.runner });
    const first = await client.events.sync(store, { perPage: 5 });
    expect(first.full).toBe(true);
    expect(sorted(copy.values())).toEqual(sorted(await freshWalk()));

    const [renamed, removed] = (await freshWalk()).map((e) => e.id);
    await api.database.prisma.event.update({ where: { id: renamed }, data: { name: "Renamed by SQL" } });
    await api.database.prisma.event.delete({ where: { id: removed } });
    const second = await client.events.sync(store, { perPage: 5 });
    expect(second).toMatchObject({ full: false, upserts: 1, deletes: 1 });
    expect(copy.get(renamed ?? "")?.name).toBe("Renamed by SQL");
    expect(sorted(copy.values())).toEqual(sorted(await freshWalk()));
  });

  it("starts again from a full walk when the token predates a change of team (410 sync-expired)", async () => {
    const client = createClient({ baseUrl: api.baseUrl, token: TOKENS.runner });
    const before = store.token;
    await api.database.prisma.user.update({ where: { id: runner }, data: { teamId: CLIMBERS } });
    await expect(client.events.changes({ since: before })).rejects.toMatchObject({ status: 410, kind: "sync-expired" });

    const again = await client.events.sync(store);
    expect(again.full).toBe(true);
    const walked = await freshWalk();
    expect(walked.length).toBeGreaterThan(0);
    expect(sorted(copy.values())).toEqual(sorted(walked));
  });
});
