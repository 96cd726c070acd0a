import { CLIMBERS, contractFixture, RUNNERS, TOKENS, until } from "@community/fixtures/testing";
import request from "supertest";
import { DrainState } from "../health/drain-state";
import { MetricsService } from "../metrics/metrics.service";
import { expectProblem } from "../testing/contract-assertions";
import { type Backend, type E2eApp, listenOnLoopback, startE2eApp, startE2eAppOn } from "../testing/e2e-app";
import { insertEventSql, psql } from "../testing/psql";
import { ChangeWaits } from "./change-waits";

/**
 * Long poll on the changes feed (contract 10.1): a request with `since` and `wait` is held while
 * nothing is new and answered with the change once a commit to its team's list is made through
 * any path (here a connection of the test's own, not the api), on every replica; its time running
 * out answers as a plain poll; the bounds of `wait`, the per-token limit (429), the drain, HEAD,
 * a client that leaves, and another team's commits.
 */
const EVENTS = "/v1/me/community/team/events";
const SECRET = "list-changes-wait-e2e-cursor-secret-0123456789";
/** Far longer than any wake should take: a test that waits this long has failed. */
const LONG_WAIT = 30;

let serial = 0;

/** Inserts an event through psql (not the api, nor its pool): "another system's SQL". */
async function commitEvent(url: string, team: string): Promise<string> {
  const id = `ev_wait_${process.pid}_${serial++}`;
  await psql(url, insertEventSql(id, team));
  return id;
}

describe("long poll on the changes feed on postgres", () => {
  let first: E2eApp;
  let second: E2eApp;
  let firstBase: string;
  let secondBase: string;

  beforeAll(async () => {
    const env = { CURSOR_SECRET: SECRET, RATE_LIMIT_MAX: "0" };
    first = await startE2eApp("postgres", contractFixture(), { env });
    // A second replica over the same database.
    second = await startE2eAppOn(first.url, undefined, undefined, env);
    firstBase = (await listenOnLoopback(first)).url;
    secondBase = (await listenOnLoopback(second)).url;
    for (const app of [first, second]) {
      const waits = app.app.get(ChangeWaits);
      await until(() => waits.noticesState === "listening", "the api listens for notices", 20_000);
    }
  }, 120_000);

  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  const get = (base: string, url: string, token: string = TOKENS.runner) =>
    request(base).get(url).set("Authorization", `Bearer ${token}`);
  const waitsOf = (app: E2eApp) => app.app.get(ChangeWaits);

  async function token(base: string, bearer: string = TOKENS.runner): Promise<string> {
    const response = await get(base, `${EVENTS}/changes`, bearer);
    expect(response.status).toBe(200);
    return response.body.meta.sync.next;
  }

  /**
   * Starts a request with wait; resolves, once the app holds one more request than before, with
   * the promise of its answer (wrapped: an async function would wait for the promise it returns).
   */
  async function held(app: E2eApp, base: string, since: string, wait = LONG_WAIT, bearer: string = TOKENS.runner) {
    const before = waitsOf(app).held;
    const started = Date.now();
    const answer = get(base, `${EVENTS}/changes?since=${encodeURIComponent(since)}&wait=${wait}`, bearer).then(
      (response) => ({ response, seconds: (Date.now() - started) / 1000 }),
    );
    await until(() => waitsOf(app).held > before, "the request is held", 20_000);
    return { answer };
  }

  it("holds a request while nothing is new and answers it with a commit made on another connection", async () => {
    const since = await token(firstBase);
    const { answer } = await held(first, firstBase, since);
    const id = await commitEvent(first.url, RUNNERS);
    const { response, seconds } = await answer;
    expect(response.status).toBe(200);
    expect(response.body.changes.map((c: { id: string }) => c.id)).toEqual([id]);
    expect(response.body.meta.sync.has_more).toBe(false);
    expect(seconds).toBeLessThan(LONG_WAIT);
    expect(waitsOf(first).held).toBe(0);
  });

  it("starts a quiet hold from the token lookup's version, reading the feed only once woken", async () => {
    const polls = async (answer: string) => {
      const text = (await request(firstBase).get("/metrics")).text;
      return Number(new RegExp(`^list_changes_polls_total\\{answer="${answer}"\\} (\\d+)$`, "m").exec(text)?.[1] ?? 0);
    };
    const since = await token(firstBase);
    const [read, unchanged] = [await polls("read"), await polls("unchanged")];
    const { response } = await (await held(first, firstBase, since, 1)).answer;
    expect(response.body.changes).toEqual([]);
    // Nothing committed between the lookup and the watch: no statement read the feed.
    expect([await polls("read"), await polls("unchanged")]).toEqual([read, unchanged + 1]);
    const { answer } = await held(first, firstBase, since);
    await commitEvent(first.url, RUNNERS);
    expect((await answer).response.body.changes).toHaveLength(1);
    expect(await polls("read")).toBe(read + 1);
  });

  it("wakes the held requests of every replica with the same commit", async () => {
    const since = await token(firstBase);
    const { answer: onFirst } = await held(first, firstBase, since);
    const { answer: onSecond } = await held(second, secondBase, since);
    const id = await commitEvent(first.url, RUNNERS);
    for (const { response, seconds } of await Promise.all([onFirst, onSecond])) {
      expect(response.status).toBe(200);
      expect(response.body.changes.map((c: { id: string }) => c.id)).toEqual([id]);
      expect(seconds).toBeLessThan(LONG_WAIT);
    }
  });

  it("answers at once when changes are already waiting", async () => {
    const since = await token(firstBase);
    const id = await commitEvent(first.url, RUNNERS);
    const response = await get(firstBase, `${EVENTS}/changes?since=${encodeURIComponent(since)}&wait=${LONG_WAIT}`);
    expect(response.status).toBe(200);
    expect(response.body.changes.map((c: { id: string }) => c.id)).toEqual([id]);
  });

  it("answers as a plain poll when the wait runs out: no changes, has_more false, a next to ask with", async () => {
    const since = await token(firstBase);
    const { response, seconds } = await (await held(first, firstBase, since, 1)).answer;
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ changes: [], meta: { sync: { next: expect.any(String), has_more: false } } });
    expect(seconds).toBeGreaterThanOrEqual(0.9);
    const id = await commitEvent(first.url, RUNNERS);
    const after = await get(firstBase, `${EVENTS}/changes?since=${encodeURIComponent(response.body.meta.sync.next)}`);
    expect(after.body.changes.map((c: { id: string }) => c.id)).toEqual([id]);
  });

  it("is not woken by another team's commit, and never answers with it", async () => {
    const wakes = async () =>
      (await first.app.get(MetricsService).registry.getSingleMetric("list_changes_wait_wakes_total")?.get())?.values[0]
        ?.value ?? 0;
    const before = await wakes();
    const since = await token(firstBase);
    const { answer } = await held(first, firstBase, since, 2);
    await commitEvent(first.url, CLIMBERS);
    const { response } = await answer;
    expect(response.status).toBe(200);
    expect(response.body.changes).toEqual([]);
    expect(await wakes()).toBe(before);
  });

  it.each([
    ["without since", "wait=5"],
    ["above 60", "since=x&wait=61"],
    ["negative", "since=x&wait=-1"],
    ["fractional", "since=x&wait=1.5"],
    ["given twice", "since=x&wait=1&wait=1"],
  ])("answers 400 naming wait when it is %s", async (_what, query) => {
    const response = await get(firstBase, `${EVENTS}/changes?${query}`);
    expectProblem(response, 400, "invalid-query");
    expect(response.body.errors.map((e: { parameter: string }) => e.parameter)).toEqual(["wait"]);
  });

  it("holds at most 4 requests of one token: the next one gets 429 with Retry-After", async () => {
    const since = await token(firstBase);
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push((await held(first, firstBase, since)).answer);
    const refused = await get(firstBase, `${EVENTS}/changes?since=${encodeURIComponent(since)}&wait=${LONG_WAIT}`);
    expectProblem(refused, 429, "rate-limited");
    expect(Number(refused.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    // Another token of the same user is not refused.
    const { answer: other } = await held(first, firstBase, since, LONG_WAIT, TOKENS.runnerSecondToken);
    await commitEvent(first.url, RUNNERS);
    for (const { response } of await Promise.all([...answers, other])) expect(response.status).toBe(200);
  });

  it("frees the slot of a client that goes away", async () => {
    const since = await token(firstBase);
    const controller = new AbortController();
    const gone = fetch(`${firstBase}${EVENTS}/changes?since=${encodeURIComponent(since)}&wait=${LONG_WAIT}`, {
      headers: { Authorization: `Bearer ${TOKENS.runner}` },
      signal: controller.signal,
    }).catch((error: Error) => error.name);
    await until(() => waitsOf(first).held === 1, "the request is held", 20_000);
    controller.abort();
    expect(await gone).toBe("AbortError");
    await until(() => waitsOf(first).held === 0, "the slot is freed", 20_000);
  });

  it("answers HEAD with wait at once", async () => {
    const since = await token(firstBase);
    const started = Date.now();
    const response = await request(firstBase)
      .head(`${EVENTS}/changes?since=${encodeURIComponent(since)}&wait=${LONG_WAIT}`)
      .set("Authorization", `Bearer ${TOKENS.runner}`);
    expect(response.status).toBe(200);
    expect((Date.now() - started) / 1000).toBeLessThan(LONG_WAIT);
  });

  // Last: the second replica stays drained.
  it("answers held requests at once, with nothing new, when the replica drains", async () => {
    const since = await token(secondBase);
    const { answer } = await held(second, secondBase, since);
    second.app.get(DrainState).start();
    const { response, seconds } = await answer;
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ changes: [], meta: { sync: { next: expect.any(String), has_more: false } } });
    expect(seconds).toBeLessThan(LONG_WAIT);
    // While draining, a request that would wait is answered at once too.
    const again = await get(secondBase, `${EVENTS}/changes?since=${encodeURIComponent(since)}&wait=${LONG_WAIT}`);
    expect(again.status).toBe(200);
    expect(waitsOf(second).held).toBe(0);
  });
});

const embedded: Backend = "embedded";

describe("long poll on the changes feed on the embedded database", () => {
  let e2e: E2eApp;
  let base: string;

  beforeAll(async () => {
    e2e = await startE2eApp(embedded, contractFixture(), { env: { CURSOR_SECRET: SECRET } });
    base = (await listenOnLoopback(e2e)).url;
  }, 120_000);

  afterAll(async () => {
    await e2e?.close();
  });

  it("polls the list's version (notices do not cross pglite-socket's connections) and answers with the commit", async () => {
    const waits = e2e.app.get(ChangeWaits);
    const auth = { Authorization: `Bearer ${TOKENS.runner}` };
    const since = (await request(base).get(`${EVENTS}/changes`).set(auth)).body.meta.sync.next;
    const started = Date.now();
    const answer = request(base)
      .get(`${EVENTS}/changes?since=${encodeURIComponent(since)}&wait=${LONG_WAIT}`)
      .set(auth)
      .then((r) => r);
    await until(() => waits.held === 1, "the request is held", 20_000);
    const id = await commitEvent(e2e.url, RUNNERS);
    const response = await answer;
    expect(response.status).toBe(200);
    expect(response.body.changes.map((c: { id: string }) => c.id)).toEqual([id]);
    expect((Date.now() - started) / 1000).toBeLessThan(LONG_WAIT);
    expect(waits.noticesState).toBe("polling");
  });
});
