import { contractFixture, TOKENS } from "@community/fixtures/testing";
import request from "supertest";
import { type E2eApp, startE2eApp } from "../testing/e2e-app";

const EVENTS = "/v1/me/community/team/events";
const GUIDES = "/v1/me/community/team/guides";

/**
 * Routine migrations under a running api: widening a column that a prepared statement selects,
 * and widening an integer column. Both take milliseconds and rewrite nothing the clients see.
 */
describe.each([
  ["the primary", undefined],
  // The reads go through the replica path (its own pool and statements) over the same database.
  ["the replica path", (url: string) => url],
])("schema changes under a running api, reads on %s", (_name, readUrl) => {
  let e2e: E2eApp;

  beforeAll(async () => {
    e2e = await startE2eApp("postgres", contractFixture(), { readUrl });
    // One request first: the contract recorder compiles its schemas on the first response (about
    // 2 s of blocked event loop on a loaded machine), which would time out the connections the
    // first round opens meanwhile.
    await request(e2e.server).get(EVENTS).set("Authorization", `Bearer ${TOKENS.runner}`);
  });

  afterAll(async () => {
    await e2e?.close();
  });

  /**
   * Every path, four requests at once (the pool's size), so that each pooled connection runs (and
   * prepares) the statements; no more at once, so that no request waits for a connection.
   */
  const round = async () => {
    const statuses: number[] = [];
    for (const path of [EVENTS, GUIDES, `${EVENTS}?per_page=3&page=2`, `${GUIDES}?per_page=2`]) {
      const responses = await Promise.all(
        Array.from({ length: 4 }, () => request(e2e.server).get(path).set("Authorization", `Bearer ${TOKENS.runner}`)),
      );
      statuses.push(...responses.map((response) => response.status));
    }
    return statuses;
  };

  it("answers every request while a selected varchar is widened (no 500 from a cached plan)", async () => {
    expect(new Set(await round())).toEqual(new Set([200]));
    await e2e.database.pool.query("ALTER TABLE access_tokens ALTER COLUMN client_id TYPE varchar(512)");
    await e2e.database.pool.query("ALTER TABLE accounts ALTER COLUMN slug TYPE varchar(512)");
    // A write, so that no page comes from the page cache: the page statements run again too.
    await e2e.database.pool.query("UPDATE events SET name = name || ' ' WHERE team_id = 'team_runners'");
    expect(new Set(await round())).toEqual(new Set([200]));
    expect(new Set(await round())).toEqual(new Set([200]));
  });

  it("keeps duration_seconds and price values JSON numbers after the columns become bigint", async () => {
    await e2e.database.pool.query("ALTER TABLE events ALTER COLUMN duration_seconds TYPE bigint");
    await e2e.database.pool.query("ALTER TABLE events ALTER COLUMN price_in_cents TYPE bigint");
    const expected = new Map(contractFixture().events.map((event) => [event.id, event.duration_seconds]));
    const response = await request(e2e.server).get(EVENTS).set("Authorization", `Bearer ${TOKENS.runner}`);
    expect(response.status).toBe(200);
    const events = response.body.guides as Array<{ id: string; duration_seconds: unknown; price: { value: unknown } }>;
    expect(events.length).toBeGreaterThan(0);
    for (const event of events) {
      expect(event.duration_seconds).toBe(expected.get(event.id));
      expect(typeof event.price.value).toBe("number");
    }
    expect(response.text).not.toMatch(/"duration_seconds":"/);
  });
});
