import { wireEvent } from "@community/domain/testing";
import { createClient } from "./client";
import { NetworkError, RateLimitedError, UnauthorizedError, UnavailableError } from "./errors";
import { parseRetryAfter } from "./retry-after";

const BASE = "http://api.test";
const EVENTS = "/v1/me/community/team/events";

const problem = (status: number, type: string) => ({
  type: `https://example.test/problems/${type}`,
  title: type,
  status,
  detail: `${type} detail`,
  instance: EVENTS,
});

const problemResponse = (status: number, type: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(problem(status, type)), {
    status,
    headers: { "content-type": "application/problem+json", ...headers },
  });

const pageResponse = (ids: string[], page: number, totalPages: number, headers: Record<string, string> = {}) => {
  const links = [`<${EVENTS}?page=1&per_page=2>; rel="first"`];
  if (page < totalPages) links.push(`<${EVENTS}?page=${page + 1}&per_page=2>; rel="next"`);
  return new Response(
    JSON.stringify({
      guides: ids.map((id) => wireEvent({ id })),
      meta: { pagination: { current_page: page, per_page: 2, total_pages: totalPages } },
    }),
    {
      status: 200,
      headers: { "content-type": "application/json", link: links.join(", "), "x-total-count": "5", ...headers },
    },
  );
};

/** A fetch that answers from a script and records what it was asked. */
function scriptedFetch(...responses: Array<Response | Error>) {
  const calls: Array<{ url: string; headers: Record<string, string> }> = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit) => {
    calls.push({ url: String(input), headers: { ...(init?.headers as Record<string, string>) } });
    const next = responses.shift();
    if (next === undefined) throw new Error("unexpected request");
    if (next instanceof Error) throw next;
    return next;
  };
  return { fetch: fetch as typeof globalThis.fetch, calls };
}

function clientWith(fetch: typeof globalThis.fetch, options: { maxRetries?: number; maxRetryWaitMs?: number } = {}) {
  const sleeps: number[] = [];
  const client = createClient({
    baseUrl: `${BASE}/`,
    token: "tok",
    fetch,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...options,
  });
  return { client, sleeps };
}

describe(createClient.name, () => {
  it("sends the bearer token and the page parameters, and reads the page, total and links", async () => {
    const { fetch, calls } = scriptedFetch(pageResponse(["a", "b"], 1, 3, { etag: '"e1"' }));
    const result = await clientWith(fetch).client.listEvents({ page: 1, perPage: 2 });
    expect(calls[0]?.url).toBe(`${BASE}${EVENTS}?page=1&per_page=2`);
    expect(calls[0]?.headers.Authorization).toBe("Bearer tok");
    expect(result).toEqual({
      notModified: false,
      mode: "page",
      items: [wireEvent({ id: "a" }), wireEvent({ id: "b" })],
      pagination: { current_page: 1, per_page: 2, total_pages: 3 },
      totalCount: 5,
      etag: '"e1"',
      links: { first: `${BASE}${EVENTS}?page=1&per_page=2`, next: `${BASE}${EVENTS}?page=2&per_page=2` },
    });
  });

  it("sends If-None-Match and returns a not-modified result on 304", async () => {
    const { fetch, calls } = scriptedFetch(new Response(null, { status: 304, headers: { etag: '"e1"' } }));
    const result = await clientWith(fetch).client.listGuides({ ifNoneMatch: '"e1"' });
    expect(calls[0]?.headers["If-None-Match"]).toBe('"e1"');
    expect(result).toEqual({ notModified: true, etag: '"e1"' });
  });

  it("waits Retry-After seconds after a 429 or a 503 and tries again", async () => {
    const { fetch, calls } = scriptedFetch(
      problemResponse(429, "rate-limited", { "retry-after": "2" }),
      problemResponse(503, "unavailable", { "retry-after": "1" }),
      pageResponse(["a"], 1, 1),
    );
    const { client, sleeps } = clientWith(fetch);
    const result = await client.listEvents();
    expect(sleeps).toEqual([2000, 1000]);
    expect(calls).toHaveLength(3);
    expect(result.notModified === false && result.items).toEqual([wireEvent({ id: "a" })]);
  });

  it("gives up after maxRetries with a typed error carrying the problem and Retry-After", async () => {
    const { fetch, calls } = scriptedFetch(
      problemResponse(429, "rate-limited", { "retry-after": "1" }),
      problemResponse(429, "rate-limited", { "retry-after": "1" }),
      problemResponse(429, "rate-limited", { "retry-after": "1" }),
    );
    const { client, sleeps } = clientWith(fetch, { maxRetries: 2 });
    const error = await client.listEvents().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({
      status: 429,
      kind: "rate-limited",
      retryAfterSeconds: 1,
      problem: problem(429, "rate-limited"),
    });
    expect(calls).toHaveLength(3);
    expect(sleeps).toEqual([1000, 1000]);
  });

  it("does not wait longer in total than maxRetryWaitMs", async () => {
    const { fetch, calls } = scriptedFetch(problemResponse(503, "unavailable", { "retry-after": "120" }));
    const { client, sleeps } = clientWith(fetch, { maxRetryWaitMs: 30_000 });
    await expect(client.listEvents()).rejects.toBeInstanceOf(UnavailableError);
    expect(sleeps).toEqual([]);
    expect(calls).toHaveLength(1);
  });

  it("does not retry a 401 and types it", async () => {
    const { fetch, calls } = scriptedFetch(problemResponse(401, "unauthorized"));
    const error = await clientWith(fetch)
      .client.listEvents()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnauthorizedError);
    expect(error).toMatchObject({ kind: "unauthorized", message: "unauthorized detail" });
    expect(calls).toHaveLength(1);
  });

  it("tells a network failure apart from an api error", async () => {
    const { fetch } = scriptedFetch(new TypeError("fetch failed", { cause: { code: "ECONNREFUSED" } }));
    const error = await clientWith(fetch)
      .client.listEvents()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as Error).message).toMatch(/ECONNREFUSED/);
  });

  it("walks an api without cursor mode through rel=next on the same origin", async () => {
    const { fetch, calls } = scriptedFetch(
      pageResponse(["a", "b"], 1, 3),
      pageResponse(["c", "d"], 2, 3),
      pageResponse(["e"], 3, 3),
    );
    const ids: string[] = [];
    for await (const event of clientWith(fetch).client.events.all({ perPage: 2 })) ids.push(event.id);
    expect(ids).toEqual(["a", "b", "c", "d", "e"]);
    expect(calls.map((c) => c.url)).toEqual([
      `${BASE}${EVENTS}?cursor=&per_page=2`,
      `${BASE}${EVENTS}?page=2&per_page=2`,
      `${BASE}${EVENTS}?page=3&per_page=2`,
    ]);
  });
});

describe(parseRetryAfter.name, () => {
  it("reads delay-seconds and the three HTTP-date forms, and nothing else", () => {
    const now = Date.parse("2026-03-01T18:30:00Z");
    expect(parseRetryAfter("5", now)).toBe(5);
    expect(parseRetryAfter("Sun, 01 Mar 2026 18:30:10 GMT", now)).toBe(10);
    expect(parseRetryAfter("Sun, 01 Mar 2026 18:29:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("Sunday, 01-Mar-26 18:30:05 GMT", now)).toBe(5);
    expect(parseRetryAfter("Sun Mar  1 18:30:07 2026", now)).toBe(7);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter("-1", now)).toBeUndefined();
    expect(parseRetryAfter("1.5", now)).toBeUndefined();
    expect(parseRetryAfter("2026-03-01T18:30:10Z", now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
});
