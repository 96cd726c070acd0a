import type { Event, Guide } from "@community/domain";
import { CLIMBERS, contractFixture, RUNNERS, TOKENS } from "@community/fixtures/testing";
import request from "supertest";
import { type Backend, type E2eApp, startE2eApp } from "../testing/e2e-app";

const backends: Backend[] = ["postgres", "embedded"];
const ENDPOINTS = ["/v1/me/community/team/events", "/v1/me/community/team/guides"] as const;

/**
 * A list version is unique only while the sequence behind it never repeats: a database restored
 * to an earlier point, copied between environments or with its sequence reset hands the same
 * versions out again. The page cache must still never answer one team's or list's request with
 * another's page.
 */
describe.each(backends)("page cache under repeated list versions on %s", (backend) => {
  let e2e: E2eApp;
  const fixture = contractFixture();
  const own = (team: string, endpoint: string) =>
    (endpoint.endsWith("/events") ? fixture.events : fixture.guides)
      .filter((item) => item.team_id === team)
      .map((item) => item.id)
      .sort();

  beforeAll(async () => {
    e2e = await startE2eApp(backend, fixture);
  }, 120_000);

  afterAll(async () => {
    await e2e?.close();
  });

  const ids = async (token: string, endpoint: string) => {
    const response = await request(e2e.server).get(endpoint).set("Authorization", `Bearer ${token}`);
    expect(response.status).toBe(200);
    return (response.body as { guides: (Event | Guide)[] }).guides.map((item) => item.id).sort();
  };

  it("serves a team its own items when its lists take another team's version", async () => {
    // The runners' pages go into the cache first.
    for (const endpoint of ENDPOINTS) {
      expect(await ids(TOKENS.runner, endpoint)).toEqual(own(RUNNERS, endpoint));
      expect(await ids(TOKENS.runner, endpoint)).toEqual(own(RUNNERS, endpoint));
    }
    await e2e.database.pool.query(
      `UPDATE team_list_stats SET version = (SELECT version FROM team_list_stats WHERE team_id = $1 AND list = 'events')
        WHERE team_id = $2`,
      [RUNNERS, CLIMBERS],
    );
    const reads: { endpoint: string; items: string[] }[] = [];
    for (let round = 0; round < 4; round++) {
      for (const endpoint of ENDPOINTS) reads.push({ endpoint, items: await ids(TOKENS.climber, endpoint) });
    }
    expect(reads).toEqual(reads.map(({ endpoint }) => ({ endpoint, items: own(CLIMBERS, endpoint) })));
  });
});
