import { request as httpRequest, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { statementText } from "@community/db/testing";
import type { Event, FixtureFile } from "@community/domain";
import { loadFixture } from "@community/fixtures";
import { CLIMBERS, contractFixture, RUNNERS, TOKENS } from "@community/fixtures/testing";
import request from "supertest";
import { type E2eApp, startE2eApp } from "../testing/e2e-app";

const EVENTS = "/v1/me/community/team/events";
const empty: FixtureFile = { accounts: [], teams: [], users: [], access_tokens: [], events: [], guides: [] };

/** A response as it came over the wire: the client library would decode gzip and br itself. */
interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

function decode(response: RawResponse): unknown {
  const coding = response.headers["content-encoding"];
  const { body } = response;
  const json = coding === "gzip" ? gunzipSync(body) : coding === "br" ? brotliDecompressSync(body) : body;
  return JSON.parse(json.toString("utf8"));
}

/**
 * The page cache and compression, through HTTP on a real PostgreSQL: every hot page stays right
 * after each kind of write (the list version moves with it), and every coding carries the same JSON.
 */
describe("list page cache and content codings", () => {
  let e2e: E2eApp;
  const fixture = contractFixture();

  beforeAll(async () => {
    e2e = await startE2eApp("postgres", fixture);
    const server = e2e.app.getHttpServer() as Server;
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  }, 120_000);

  afterAll(async () => {
    await e2e?.close();
  });

  let port = 0;

  function get(token: string, query = "", encoding = "identity", ifNoneMatch?: string): Promise<RawResponse> {
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, "accept-encoding": encoding };
    if (ifNoneMatch !== undefined) headers["if-none-match"] = ifNoneMatch;
    return new Promise((resolve, reject) => {
      const sent = httpRequest({ host: "127.0.0.1", port, path: `${EVENTS}${query}`, headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
        );
      });
      sent.on("error", reject);
      sent.end();
    });
  }

  const ids = async (token: string, encoding = "gzip, br") =>
    ((decode(await get(token, "", encoding)) as { guides: Event[] }).guides ?? []).map((e) => e.id);

  async function metric(name: string): Promise<number> {
    const text = (await request(e2e.server).get("/metrics")).text;
    const line = text.split("\n").find((l) => l.startsWith(`${name} `));
    return Number(line?.split(" ")[1]);
  }

  /** Serves the page twice (the second from the cache), so that a following write meets a hot page. */
  async function warm(token: string): Promise<void> {
    const hits = await metric("list_page_cache_hits_total");
    for (let i = 0; i < 2; i++) {
      for (const encoding of ["identity", "gzip", "br"]) await get(token, "", encoding);
    }
    expect(await metric("list_page_cache_hits_total")).toBeGreaterThan(hits);
  }

  it("serves a hot page from memory without a page statement", async () => {
    await get(TOKENS.runner);
    const statements: string[] = [];
    const query = e2e.database.pool.query.bind(e2e.database.pool);
    const spy = jest.spyOn(e2e.database.pool, "query").mockImplementation(((text: unknown, ...rest: unknown[]) => {
      statements.push(statementText(text));
      return (query as (...args: unknown[]) => unknown)(text, ...rest);
    }) as typeof e2e.database.pool.query);
    try {
      const hot = await get(TOKENS.runner);
      expect(hot.status).toBe(200);
    } finally {
      spy.mockRestore();
    }
    expect(statements).toHaveLength(1);
    expect(statements[0]).toContain("access_tokens");
  });

  it("sends gzip and br bodies that decode to the identity JSON, each with its own ETag", async () => {
    const identity = await get(TOKENS.runner);
    const gzip = await get(TOKENS.runner, "", "gzip");
    const br = await get(TOKENS.runner, "", "gzip, br");
    expect(identity.headers["content-encoding"]).toBeUndefined();
    expect(gzip.headers["content-encoding"]).toBe("gzip");
    expect(br.headers["content-encoding"]).toBe("br");
    for (const response of [identity, gzip, br]) {
      expect(response.headers.vary).toBe("Authorization, Accept-Encoding");
      expect(Number(response.headers["content-length"])).toBe(response.body.length);
    }
    expect(decode(gzip)).toEqual(decode(identity));
    expect(decode(br)).toEqual(decode(identity));
    expect(gzip.body.length).toBeLessThan(identity.body.length / 3);
    expect(br.body.length).toBeLessThan(identity.body.length / 3);
    const identityTag = identity.headers.etag as string;
    expect(gzip.headers.etag).toBe(identityTag.replace(/"$/, '-gzip"'));
    expect(br.headers.etag).toBe(identityTag.replace(/"$/, '-br"'));
  });

  it("answers If-None-Match with 304 for the tag of the negotiated coding only", async () => {
    const tags: Record<string, string> = {};
    for (const encoding of ["identity", "gzip", "br"])
      tags[encoding] = (await get(TOKENS.runner, "", encoding)).headers.etag ?? "";
    for (const encoding of ["identity", "gzip", "br"]) {
      const tag = tags[encoding] as string;
      const current = await get(TOKENS.runner, "", encoding, tag);
      expect(current.status).toBe(304);
      expect(current.headers.etag).toBe(tag);
      expect(current.body.length).toBe(0);
    }
    const otherCoding = await get(TOKENS.runner, "", "identity", tags.gzip);
    expect(otherCoding.status).toBe(200);
    expect(otherCoding.headers.etag).toBe(tags.identity);
  });

  it("leaves a body under 1 KB uncompressed", async () => {
    const small = await get(TOKENS.runner, "?per_page=1", "gzip, br");
    expect(small.body.length).toBeLessThan(1024);
    expect(small.headers["content-encoding"]).toBeUndefined();
    expect(decode(small)).toMatchObject({ meta: { pagination: { per_page: 1 } } });
  });

  it("shows a write through the loader on the next request", async () => {
    await warm(TOKENS.climber);
    const before = await ids(TOKENS.climber);
    const template = fixture.events.find((e) => e.team_id === CLIMBERS);
    if (template === undefined) throw new Error("the fixture has no climbers' event");
    await loadFixture(e2e.database.prisma, {
      ...empty,
      events: [{ ...template, id: "ev_c_new", slug: "new-one", scheduled_at: "2030-01-01T00:00:00Z" }],
    });
    for (const encoding of ["identity", "gzip", "br"]) {
      expect(await ids(TOKENS.climber, encoding)).toEqual(["ev_c_new", ...before]);
    }
  });

  it("shows an account rename on the next request", async () => {
    await warm(TOKENS.runner);
    const account = fixture.accounts.find((a) => a.id === "acc_jane");
    if (account === undefined) throw new Error("the fixture has no acc_jane");
    await loadFixture(e2e.database.prisma, { ...empty, accounts: [{ ...account, name: "Jane Renamed" }] });
    for (const encoding of ["identity", "gzip", "br"]) {
      const page = decode(await get(TOKENS.runner, "", encoding)) as { guides: Event[] };
      const names = new Set(page.guides.filter((e) => e.account.id === "acc_jane").map((e) => e.account.name));
      expect([...names]).toEqual(["Jane Renamed"]);
    }
  });

  it("shows a delete on the next request", async () => {
    await warm(TOKENS.runner);
    const before = await ids(TOKENS.runner);
    const gone = before[0] as string;
    await e2e.database.pool.query("DELETE FROM events WHERE id = $1", [gone]);
    for (const encoding of ["identity", "gzip", "br"]) {
      expect(await ids(TOKENS.runner, encoding)).toEqual(before.slice(1));
    }
  });

  it("shows a move between teams on the next request of both teams", async () => {
    await warm(TOKENS.runner);
    await warm(TOKENS.climber);
    const runners = await ids(TOKENS.runner);
    const climbers = await ids(TOKENS.climber);
    const moved = fixture.events.find((e) => e.id === runners[0]);
    expect(moved?.team_id).toBe(RUNNERS);
    if (moved === undefined) return;
    await loadFixture(e2e.database.prisma, {
      ...empty,
      events: [{ ...moved, team_id: CLIMBERS, scheduled_at: "2031-01-01T00:00:00Z" }],
    });
    expect(await ids(TOKENS.runner)).toEqual(runners.slice(1));
    expect(await ids(TOKENS.climber)).toEqual([moved.id, ...climbers]);
    const total = await get(TOKENS.climber, "", "br");
    expect(total.headers["x-total-count"]).toBe(String(climbers.length + 1));
  });

  it("counts hits, misses and the bytes it holds in /metrics", async () => {
    expect(await metric("list_page_cache_hits_total")).toBeGreaterThan(0);
    expect(await metric("list_page_cache_misses_total")).toBeGreaterThan(0);
    expect(await metric("list_page_cache_bytes")).toBeGreaterThan(0);
    expect(await metric("list_page_cache_max_bytes")).toBe(e2e.config.pageCacheBytes);
    expect(await metric("list_page_cache_evictions_total")).toBe(0);
  });
});
