import type { ServerResponse } from "node:http";
import { wireEvent } from "@community/domain/testing";
import { type LoopbackServer, sendJson, startLoopbackServer } from "@community/fixtures/testing";
import { createClient } from "./client";
import {
  CrossOriginLinkError,
  RateLimitedError,
  RedirectError,
  RequestTimeoutError,
  ResponseTooLargeError,
  UnexpectedResponseError,
  WalkLimitError,
} from "./errors";

/** What a hostile or broken server on loopback can do to the client, case by case (RFC 6750 s. 5, RFC 9110 s. 10.2.3). */
const EVENTS = "/v1/me/community/team/events";
const TOKEN = "secret-token";

const servers: LoopbackServer[] = [];
const serve = async (handler: Parameters<typeof startLoopbackServer>[0]) => {
  const server = await startLoopbackServer(handler);
  servers.push(server);
  return server;
};
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A page-mode page (an api without cursor mode) whose Link rel="next" is `next`. */
const pageWithNext = (response: ServerResponse, ids: string[], next?: string) =>
  sendJson(
    response,
    {
      guides: ids.map((id) => wireEvent({ id })),
      meta: { pagination: { current_page: 1, per_page: 100, total_pages: 2 } },
    },
    200,
    next === undefined ? {} : { link: `<${next}>; rel="next"` },
  );

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

const drain = async (iterable: AsyncIterable<unknown>) => {
  const seen: unknown[] = [];
  for await (const item of iterable) seen.push(item);
  return seen;
};

const client = (baseUrl: string, options: Partial<Parameters<typeof createClient>[0]> = {}) =>
  createClient({ baseUrl, token: TOKEN, sleep: async () => undefined, ...options });

describe("the client against a hostile server", () => {
  it("never sends the token to another origin: a rel=next elsewhere is refused with CrossOriginLinkError", async () => {
    const elsewhere = await serve((_request, response) => pageWithNext(response, ["stolen"]));
    const api = await serve((_request, response) =>
      pageWithNext(response, ["ev_1"], `${elsewhere.url}${EVENTS}?page=2`),
    );

    const error = await failure(drain(client(api.url).events.all()));
    expect(elsewhere.requests.map((r) => r.headers.authorization)).not.toContain(`Bearer ${TOKEN}`);
    expect(error).toBeInstanceOf(CrossOriginLinkError);
    expect(elsewhere.requests).toEqual([]);
    expect((error as CrossOriginLinkError).target).toBe(`${elsewhere.url}${EVENTS}?page=2`);
  });

  it("follows no redirect, so the token cannot leave with one either", async () => {
    const elsewhere = await serve((_request, response) => pageWithNext(response, ["stolen"]));
    const api = await serve((_request, response) => {
      response.writeHead(302, { location: `${elsewhere.url}${EVENTS}` });
      response.end();
    });
    const error = await failure(client(api.url).listEvents());
    expect(elsewhere.requests).toEqual([]);
    expect(error).toBeInstanceOf(RedirectError);
  });

  it("stops a chain of distinct next links at maxPages", async () => {
    const api = await serve((request, response) => {
      const page = Number(new URL(request.url ?? "", "http://x").searchParams.get("page") ?? "1");
      // An unbounded client would run on: end the chain (with a 500) well after the limit.
      if (page > 300) return sendJson(response, { detail: "end of the test's chain" }, 500);
      pageWithNext(response, [`ev_${page}`], `${EVENTS}?page=${page + 1}`);
    });
    const error = await failure(drain(client(api.url, { maxPages: 50 }).events.all()));
    expect(api.requests).toHaveLength(50);
    expect(error).toBeInstanceOf(WalkLimitError);
    expect(error).toMatchObject({ limit: "maxPages", value: 50 });
  });

  it("stops a cursor walk whose next_cursor leads back to a page already read", async () => {
    const api = await serve((_request, response, server) => {
      if (server.requests.length > 300) return sendJson(response, { detail: "end of the test's loop" }, 500);
      sendJson(response, { guides: [wireEvent()], meta: { pagination: { per_page: 1, next_cursor: "same" } } });
    });
    const error = await failure(drain(client(api.url).events.all()));
    expect(api.requests.map((r) => r.url)).toEqual([`${EVENTS}?cursor=`, `${EVENTS}?cursor=same`]);
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect((error as Error).message).toMatch(/the next page is one already read/);
  });

  it("stops a walk at maxItems before handing over the page that goes past it", async () => {
    const api = await serve((request, response) => {
      const page = Number(new URL(request.url ?? "", "http://x").searchParams.get("page") ?? "1");
      if (page > 30) return sendJson(response, { detail: "end of the test's chain" }, 500);
      const ids = Array.from({ length: 100 }, (_, i) => `ev_${page}_${i}`);
      pageWithNext(response, ids, `${EVENTS}?page=${page + 1}`);
    });
    const seen: unknown[] = [];
    const walk = async () => {
      for await (const item of client(api.url, { maxItems: 250 }).events.all()) seen.push(item);
    };
    const error = await failure(walk());
    expect(seen).toHaveLength(200);
    expect(error).toBeInstanceOf(WalkLimitError);
    expect(error).toMatchObject({ limit: "maxItems", value: 250 });
  });

  it("times out a server that never answers", async () => {
    const api = await serve((_request, response) => {
      // Answers long after the client should have given up (an unbounded client gets this page).
      setTimeout(() => {
        if (!response.destroyed) pageWithNext(response, ["late"]);
      }, 3_000).unref();
    });
    const error = await failure(client(api.url, { timeoutMs: 300 }).listEvents());
    expect((error as Error | undefined)?.name).toBe("RequestTimeoutError");
    expect(error).toBeInstanceOf(RequestTimeoutError);
  });

  it("times out a body that drips slowly, however long each byte keeps the connection busy", async () => {
    const api = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      const body = JSON.stringify({
        guides: [],
        meta: { pagination: { current_page: 1, per_page: 100, total_pages: 0 } },
      });
      let sent = 0;
      const drip = setInterval(() => {
        if (response.destroyed || sent >= body.length) {
          clearInterval(drip);
          response.end();
          return;
        }
        response.write(body.charAt(sent++));
      }, 50);
    });
    const error = await failure(client(api.url, { timeoutMs: 500 }).listEvents());
    expect((error as Error | undefined)?.name).toBe("RequestTimeoutError");
    expect(error).toBeInstanceOf(RequestTimeoutError);
  });

  it("stops reading a body past maxBodyBytes, with or without Content-Length", async () => {
    const chunk = " ".repeat(64 * 1024);
    const streamed = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.write('{"guides":[],"meta":{"pagination":{"current_page":1,"per_page":100,"total_pages":0}}}');
      // 4 MiB of JSON whitespace: a valid body, only too large.
      for (let i = 0; i < 64; i++) response.write(chunk);
      response.end();
    });
    const streamedError = await failure(client(streamed.url, { maxBodyBytes: 1024 * 1024 }).listEvents());
    expect((streamedError as Error | undefined)?.name).toBe("ResponseTooLargeError");
    expect(streamedError).toBeInstanceOf(ResponseTooLargeError);

    const declared = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "application/json", "content-length": String(200 * 1024 * 1024) });
      response.write("{");
      setTimeout(() => response.destroy(), 3_000).unref();
    });
    const declaredError = await failure(client(declared.url).listEvents());
    expect(declaredError).toBeInstanceOf(ResponseTooLargeError);
  });

  it.each([
    [
      "guides is a string",
      { guides: "abc", meta: { pagination: { current_page: 1, per_page: 100, total_pages: 1 } } },
      /body\.guides must be an array/,
    ],
    ["meta is missing", { guides: [] }, /body\.meta must be an object/],
    [
      "an item is not an object",
      { guides: [1], meta: { pagination: { current_page: 1, per_page: 100, total_pages: 1 } } },
      /body\.guides\[0\] must be an object/,
    ],
    [
      "an item lacks its name",
      {
        guides: [{ ...wireEvent(), name: undefined }],
        meta: { pagination: { current_page: 1, per_page: 100, total_pages: 1 } },
      },
      /body\.guides\[0\]\.name must be a string/,
    ],
  ])(
    "answers a malformed 200 (%s) with UnexpectedResponseError, from list() and from all()",
    async (_case, body, message) => {
      const api = await serve((_request, response) => sendJson(response, body));
      const listed = await failure(client(api.url).listEvents());
      expect((listed as Error | undefined)?.message).toMatch(message);
      expect(listed).toBeInstanceOf(UnexpectedResponseError);
      const walked = await failure(drain(client(api.url).events.all()));
      expect(walked).toBeInstanceOf(UnexpectedResponseError);
    },
  );

  it.each([
    [
      "an unknown op",
      { changes: [{ op: "explode", id: "ev_1" }], meta: { sync: { next: "t", has_more: false } } },
      /op must be/,
    ],
    [
      "an upsert of another id",
      {
        changes: [{ op: "upsert", id: "ev_1", item: wireEvent({ id: "ev_2" }) }],
        meta: { sync: { next: "t", has_more: false } },
      },
      /item\.id must be "ev_1"/,
    ],
    [
      "has_more as a string",
      { changes: [], meta: { sync: { next: "t", has_more: "no" } } },
      /has_more must be a boolean/,
    ],
  ])("answers a malformed changes page (%s) with UnexpectedResponseError", async (_case, body, message) => {
    const api = await serve((_request, response) => sendJson(response, body));
    const error = await failure(client(api.url).events.changes({ since: "t0" }));
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect((error as Error).message).toMatch(message);
  });

  it.each(["-1", "1.5", "soon", "2026-03-01", "+3"])(
    "ignores Retry-After: %s and waits its own default second",
    async (header) => {
      let calls = 0;
      const api = await serve((_request, response) => {
        if (calls++ === 0) return sendJson(response, { detail: "slow down" }, 429, { "retry-after": header });
        pageWithNext(response, ["ev_1"]);
      });
      const sleeps: number[] = [];
      const result = await createClient({
        baseUrl: api.url,
        token: TOKEN,
        sleep: async (ms) => {
          sleeps.push(ms);
        },
      }).listEvents();
      expect(sleeps).toEqual([1000]);
      expect(result.notModified).toBe(false);

      const limited = await serve((_request, response) =>
        sendJson(response, { detail: "slow down" }, 429, { "retry-after": header }),
      );
      const error = await failure(client(limited.url, { maxRetries: 0 }).listEvents());
      expect(error).toBeInstanceOf(RateLimitedError);
      expect((error as RateLimitedError).retryAfterSeconds).toBeUndefined();
    },
  );
});
