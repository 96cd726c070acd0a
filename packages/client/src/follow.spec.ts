import { wireEvent } from "@community/domain/testing";
import { createClient } from "./client";
import type { ChangesPage } from "./collection";
import { NetworkError, RateLimitedError, SyncExpiredError, UnauthorizedError, UnavailableError } from "./errors";
import { LIVE_DEFAULTS } from "./follow";
import type { Event } from "./wire";

/** `follow()` and `changes({ wait })` against a scripted fetch: what is asked, what is retried, when it stops. */
const BASE = "http://api.test";
const EVENTS = "/v1/me/community/team/events";

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
const changesPage = (next: string, ids: string[] = [], hasMore = false) =>
  json({
    changes: ids.map((id) => ({ op: "upsert", id, item: wireEvent({ id }) })),
    meta: { sync: { next, has_more: hasMore } },
  });
const problem = (status: number, type: string, headers: Record<string, string> = {}) =>
  json(
    { type: `https://x.test/problems/${type}`, title: type, status, detail: `${type} detail`, instance: EVENTS },
    status,
    {
      "content-type": "application/problem+json",
      ...headers,
    },
  );

/** Answers come from `script` in order; "hold" never answers, until the request's signal aborts. */
type Step = Response | Error | "hold" | ((signal: AbortSignal) => Promise<Response>);

function scripted(script: Step[]) {
  const calls: URLSearchParams[] = [];
  const aborted: string[] = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(String(input));
    calls.push(url.searchParams);
    // Past the end of the script, every request is held.
    const step = script.shift() ?? "hold";
    const signal = init?.signal as AbortSignal;
    if (step instanceof Error) throw step;
    if (step === "hold") {
      return new Promise<Response>((_, reject) =>
        signal.addEventListener("abort", () => {
          aborted.push(url.search);
          reject(signal.reason);
        }),
      );
    }
    return typeof step === "function" ? step(signal) : step;
  };
  return { fetch: fetch as typeof globalThis.fetch, calls, aborted };
}

function clientOn(script: Step[], options: { maxRetries?: number; timeoutMs?: number } = {}) {
  const sleeps: number[] = [];
  const fake = scripted(script);
  const client = createClient({
    baseUrl: BASE,
    token: "tok",
    fetch: fake.fetch,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...options,
  });
  return { client, sleeps, ...fake };
}

const networkError = () => new TypeError("fetch failed", { cause: { code: "ECONNRESET" } });

/** Takes pages from `follow()` until `stop` says so; then aborts, and returns what came. */
async function followUntil(
  iterable: AsyncIterable<ChangesPage<Event>>,
  controller: AbortController,
  stop: (pages: ChangesPage<Event>[]) => boolean,
) {
  const pages: ChangesPage<Event>[] = [];
  for await (const page of iterable) {
    pages.push(page);
    if (stop(pages)) controller.abort();
  }
  return pages;
}

afterEach(() => {
  jest.restoreAllMocks();
});

describe("changes({ wait })", () => {
  it("sends wait with since, and lets a held answer take its wait on top of timeoutMs", async () => {
    const late = (signal: AbortSignal) =>
      new Promise<Response>((resolve, reject) => {
        const timer = setTimeout(() => resolve(changesPage("t2", ["ev_1"])), 400);
        signal.addEventListener("abort", () => {
          clearTimeout(timer);
          reject(signal.reason);
        });
      });
    const { client, calls } = clientOn([late, late], { timeoutMs: 200 });
    const page = await client.events.changes({ since: "t1", wait: 1 });
    expect(page.changes.map((c) => c.id)).toEqual(["ev_1"]);
    expect(Object.fromEntries(calls[0] ?? [])).toEqual({ since: "t1", wait: "1" });
    // Without wait, the same answer is past the timeout.
    await expect(client.events.changes({ since: "t1" })).rejects.toMatchObject({ name: "RequestTimeoutError" });
  });

  it.each([[61], [-1], [1.5], [Number.NaN]])("refuses wait %p before sending anything", async (wait) => {
    const { client, calls } = clientOn([]);
    await expect(client.events.changes({ since: "t1", wait })).rejects.toThrow(
      /wait must be a whole number of seconds from 0 to 60/,
    );
    expect(calls).toEqual([]);
  });

  it("refuses wait without since before sending anything", async () => {
    const { client, calls } = clientOn([]);
    await expect(client.events.changes({ wait: 5 })).rejects.toThrow(
      new TypeError("wait needs since: a long poll waits for the changes after a token"),
    );
    expect(calls).toEqual([]);
  });
});

describe("follow()", () => {
  it("starts from now without since, then long-polls from each next, handing over each page", async () => {
    const { client, calls } = clientOn([
      changesPage("t0"),
      changesPage("t1", ["ev_1"]),
      changesPage("t2", ["ev_2", "ev_3"], true),
      changesPage("t3", ["ev_4"]),
      "hold",
    ]);
    const controller = new AbortController();
    const pages = await followUntil(
      client.events.follow({ perPage: 2, signal: controller.signal }),
      controller,
      (seen) => seen.length === 4,
    );
    expect(pages.map((p) => [p.next, p.changes.map((c) => c.id)])).toEqual([
      ["t0", []],
      ["t1", ["ev_1"]],
      ["t2", ["ev_2", "ev_3"]],
      ["t3", ["ev_4"]],
    ]);
    expect(calls.map((q) => Object.fromEntries(q))).toEqual([
      {},
      { since: "t0", per_page: "2", wait: "30" },
      { since: "t1", per_page: "2", wait: "30" },
      { since: "t2", per_page: "2", wait: "30" },
    ]);
  });

  it("ends quietly and at once when the signal aborts, aborting the request it holds", async () => {
    const { client, calls, aborted } = clientOn(["hold"]);
    const controller = new AbortController();
    const pages: unknown[] = [];
    const done = (async () => {
      for await (const page of client.events.follow({ since: "t5", wait: 60, signal: controller.signal }))
        pages.push(page);
    })();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(calls).toHaveLength(1);
    const started = Date.now();
    controller.abort();
    await expect(done).resolves.toBeUndefined();
    expect(Date.now() - started).toBeLessThan(500);
    expect(aborted).toEqual([`?since=t5&wait=60`]);
    expect(pages).toEqual([]);
  });

  it("waits out 429 and 503 as long as Retry-After says, then asks again from the same token", async () => {
    jest.spyOn(Math, "random").mockReturnValue(0);
    const { client, calls, sleeps } = clientOn(
      [
        problem(429, "rate-limited", { "retry-after": "7" }),
        problem(503, "unavailable", { "retry-after": "2" }),
        changesPage("t9", ["ev_1"]),
        "hold",
      ],
      { maxRetries: 0 },
    );
    const controller = new AbortController();
    const retries: Array<[string, number]> = [];
    const pages = await followUntil(
      client.events.follow({
        since: "t8",
        signal: controller.signal,
        onRetry: (error, ms) => retries.push([(error as Error).name, ms]),
      }),
      controller,
      () => true,
    );
    expect(pages.map((p) => p.next)).toEqual(["t9"]);
    expect(sleeps).toEqual([7000, 2000]);
    expect(retries).toEqual([
      [RateLimitedError.name, 7000],
      [UnavailableError.name, 2000],
    ]);
    expect(calls.map((q) => q.get("since"))).toEqual(["t8", "t8", "t8"]);
  });

  it("backs off after network failures and 5xx with growing, jittered waits, and starts over after a success", async () => {
    const random = jest.spyOn(Math, "random").mockReturnValue(0);
    const { client, calls, sleeps } = clientOn([
      networkError(),
      networkError(),
      problem(502, "bad-gateway"),
      networkError(),
      changesPage("t2", ["ev_1"]),
      networkError(),
      changesPage("t3", ["ev_2"]),
      "hold",
    ]);
    const controller = new AbortController();
    const errors: unknown[] = [];
    await followUntil(
      client.events.follow({ since: "t1", signal: controller.signal, onRetry: (error) => errors.push(error) }),
      controller,
      (pages) => pages.length === 2,
    );
    // Half the cap at the lowest draw: 1 s, 2 s, 4 s, 8 s; then 1 s again after the success.
    expect(sleeps).toEqual([500, 1000, 2000, 4000, 500]);
    expect(errors.map((e) => (e as Error).constructor.name)).toEqual([
      NetworkError.name,
      NetworkError.name,
      "ApiError",
      NetworkError.name,
      NetworkError.name,
    ]);
    expect(calls.map((q) => q.get("since"))).toEqual(["t1", "t1", "t1", "t1", "t1", "t2", "t2"]);

    random.mockReturnValue(0.999);
    const again = clientOn(Array.from({ length: 8 }, networkError));
    const stop = new AbortController();
    const loop = (async () => {
      for await (const _ of again.client.events.follow({ since: "t1", signal: stop.signal })) break;
    })();
    await new Promise((resolve) => setTimeout(resolve, 50));
    stop.abort();
    await loop;
    // The highest draw is just under the cap, and the cap stops at LIVE_DEFAULTS.retryMaxMs.
    const caps = [1000, 2000, 4000, 8000, 16000, 30000, 30000];
    expect(again.sleeps.slice(0, 7)).toEqual(caps.map((cap) => Math.floor(cap / 2 + (0.999 * cap) / 2)));
    expect(LIVE_DEFAULTS.retryMaxMs).toBe(30_000);
  });

  it("throws SyncExpiredError on 410, and any other 4xx at once, without retrying", async () => {
    const expired = clientOn([problem(410, "sync-expired")]);
    const iterate = async (client: typeof expired.client) => {
      for await (const _ of client.events.follow({ since: "t1" })) {
      }
    };
    await expect(iterate(expired.client)).rejects.toBeInstanceOf(SyncExpiredError);
    const refused = clientOn([problem(401, "unauthorized")]);
    await expect(iterate(refused.client)).rejects.toBeInstanceOf(UnauthorizedError);
    expect([expired.calls.length, refused.calls.length, expired.sleeps, refused.sleeps]).toEqual([1, 1, [], []]);
  });

  it("pauses after an empty answer that came at once, so that an api ignoring wait is not asked in a busy loop", async () => {
    const { client, sleeps } = clientOn([
      changesPage("t2"),
      changesPage("t3"),
      changesPage("t4", ["ev_1"]),
      changesPage("t5", [], true),
      "hold",
    ]);
    const controller = new AbortController();
    await followUntil(
      client.events.follow({ since: "t1", signal: controller.signal }),
      controller,
      (p) => p.length === 4,
    );
    // Two quick empty answers: a pause after each; none after changes or has_more.
    expect(sleeps).toEqual([LIVE_DEFAULTS.minPollIntervalMs, LIVE_DEFAULTS.minPollIntervalMs]);
  });

  it("refuses a wait outside 0..60 before sending anything", async () => {
    const { client, calls } = clientOn([]);
    const iterate = async () => {
      for await (const _ of client.events.follow({ since: "t1", wait: 90 })) {
      }
    };
    await expect(iterate()).rejects.toBeInstanceOf(RangeError);
    expect(calls).toEqual([]);
  });
});

describe("the retries of one request", () => {
  it("stop waiting for Retry-After as soon as the signal aborts", async () => {
    // The platform's timers: a wait of 60 s that the abort must cut short.
    const client = createClient({
      baseUrl: BASE,
      token: "tok",
      fetch: scripted([problem(429, "rate-limited", { "retry-after": "25" })]).fetch,
    });
    const controller = new AbortController();
    const pending = client.events.changes({ since: "t1", signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = Date.now();
    controller.abort(new Error("stopped by the test"));
    await expect(pending).rejects.toThrow("stopped by the test");
    expect(Date.now() - started).toBeLessThan(500);
  });
});
