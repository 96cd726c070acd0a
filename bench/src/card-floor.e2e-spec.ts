import { createTestDatabase, type TestDatabase } from "@community/db/testing";
import { BENCH_TOKEN, loadBenchData } from "./load";
import { type RunningServer, startServer } from "./servers";

/**
 * The card floor is compared with the floor as doing the same work (bench/results/2026-11-history.md,
 * "What the card itself costs"): each of its variants must answer every page-mode request of the benchmark
 * with the floor's status, headers and bytes. Runs the compiled servers, as the benchmark does.
 */

const EVENTS = "/v1/me/community/team/events";
const GUIDES = "/v1/me/community/team/guides";
const COMPARED_HEADERS = ["etag", "link", "x-total-count", "cache-control", "vary", "content-type"];

let database: TestDatabase;
const servers: RunningServer[] = [];
let floor: RunningServer;
const cards: Record<string, RunningServer> = {};

beforeAll(async () => {
  database = await createTestDatabase("bench_card_floor");
  await loadBenchData(database.url, 250);
  floor = await startServer("floor", { databaseUrl: database.url, poolMax: 2 });
  servers.push(floor);
  for (const parts of ["passport,dto,prisma", ""]) {
    const card = await startServer("card", { databaseUrl: database.url, poolMax: 2, env: { CARD_FLOOR_PARTS: parts } });
    servers.push(card);
    cards[parts || "none"] = card;
  }
}, 120_000);

afterAll(async () => {
  for (const server of servers) await server.stop();
  await database?.drop();
});

async function get(server: RunningServer, path: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${server.baseUrl}${path}`, {
    headers: { authorization: `Bearer ${BENCH_TOKEN}`, ...headers },
  });
  const picked = Object.fromEntries(COMPARED_HEADERS.map((name) => [name, response.headers.get(name)]));
  return { status: response.status, headers: picked, body: await response.text() };
}

describe.each(["passport,dto,prisma", "none"])("the card floor with parts %s", (parts) => {
  it.each([
    `${EVENTS}?page=1&per_page=10`,
    `${EVENTS}?page=2&per_page=100`,
    `${EVENTS}`,
    `${GUIDES}?page=3&per_page=100`,
  ])("answers %s with the floor's status, headers and bytes", async (path) => {
    const expected = await get(floor, path);
    expect(expected.status).toBe(200);
    expect(JSON.parse(expected.body)).toHaveProperty(path.startsWith(EVENTS) ? "events" : "guides");
    expect(await get(cards[parts] as RunningServer, path)).toEqual(expected);
  });

  it("answers a revalidation with the floor's 304", async () => {
    const path = `${EVENTS}?page=1&per_page=100`;
    const { headers } = await get(floor, path);
    const etag = headers.etag as string;
    const card = await get(cards[parts] as RunningServer, path, { "if-none-match": etag });
    expect(card.status).toBe(304);
    expect(card.headers.etag).toBe(etag);
  });

  it.each(["per_page=0", "per_page=101", "page=x"])("refuses %s as the floor does", async (query) => {
    expect((await get(floor, `${EVENTS}?${query}`)).status).toBe(400);
    expect((await get(cards[parts] as RunningServer, `${EVENTS}?${query}`)).status).toBe(400);
  });

  it("refuses an unknown token", async () => {
    const response = await fetch(`${cards[parts]?.baseUrl}${EVENTS}`, { headers: { authorization: "Bearer nope" } });
    expect(response.status).toBe(401);
  });
});
