import { Writable } from "node:stream";
import { contractFixture, RUNNERS, TOKENS } from "@community/fixtures/testing";
import request from "supertest";
import { expectProblem } from "../testing/contract-assertions";
import { type E2eApp, startE2eApp } from "../testing/e2e-app";
import { parseFeed } from "./testing/parse-feed";

/**
 * Calendar feeds (contract 11.2) on PostgreSQL: the rate limits (per feed, per address, and the
 * failed-guess budget, which refuses from memory once spent), the 5,000-event bound, and the
 * access log, which never holds a secret this suite made.
 */
const FEEDS = "/v1/me/community/team/calendar-feeds";
const DAY = 86_400_000;
const auth = (token: string = TOKENS.runner) => ({ Authorization: `Bearer ${token}` });
const pathOf = (url: string) => new URL(url).pathname;

/** Every line the app's logger writes. */
class Capture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    this.lines.push(...chunk.toString().split("\n").filter(Boolean));
    done();
  }
}

const secrets: string[] = [];

async function create(e2e: E2eApp, token: string = TOKENS.runner): Promise<{ id: string; url: string }> {
  const response = await request(e2e.server).post(FEEDS).set(auth(token)).send({});
  expect(response.status).toBe(201);
  secrets.push(/(cal_[A-Za-z0-9_-]{43})/.exec(response.body.url)?.[1] as string);
  return response.body;
}

describe("calendar feed limits and log on postgres", () => {
  const capture = new Capture();
  let e2e: E2eApp;

  beforeAll(async () => {
    e2e = await startE2eApp("postgres", contractFixture(), {
      env: {
        LOG_LEVEL: "info",
        RATE_LIMIT_MAX: "40",
        CALENDAR_FEED_RATE_LIMIT_MAX: "3",
        AUTH_FAILURE_LIMIT: "3",
        AUTH_UNKNOWN_TOKEN_CACHE_MS: "0",
      },
      logDestination: capture,
    });
  }, 120_000);

  afterAll(async () => {
    await e2e?.close();
    // The log of the whole suite: no secret it made, and no part of one.
    expect(capture.lines.length).toBeGreaterThan(3);
    const log = capture.lines.join("\n");
    for (const secret of secrets) {
      expect(log).not.toContain(secret);
      expect(log).not.toContain(secret.slice(4, 24));
    }
    expect(log).toContain("/v1/calendar-feeds/REDACTED.ics");
  });

  it("limits fetches per feed (429 with Retry-After), counting 304s", async () => {
    const feed = await create(e2e);
    const first = await request(e2e.server).get(pathOf(feed.url));
    expect(first.status).toBe(200);
    expect(
      (
        await request(e2e.server)
          .get(pathOf(feed.url))
          .set("If-None-Match", first.headers.etag as string)
      ).status,
    ).toBe(304);
    expect((await request(e2e.server).get(pathOf(feed.url))).status).toBe(200);
    const limited = await request(e2e.server).get(pathOf(feed.url));
    expectProblem(limited, 429, "rate-limited");
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
    expect(limited.text).not.toContain(secrets.at(-1) as string);
    const other = await create(e2e, TOKENS.runnerSecondToken);
    expect((await request(e2e.server).get(pathOf(other.url))).status).toBe(200);
  });

  it("refuses an address that spent its failed-guess budget from memory (no lookup), yet serves feeds it knows", async () => {
    const known = await create(e2e);
    expect((await request(e2e.server).get(pathOf(known.url))).status).toBe(200);
    const guess = (i: number) => `/v1/calendar-feeds/cal_${Buffer.alloc(32, i).toString("base64url")}.ics`;
    // As for bearer tokens: the failure past the budget (AUTH_FAILURE_LIMIT) is the last one looked up.
    for (let i = 0; i < 4; i++) expectProblem(await request(e2e.server).get(guess(i)), 404, "not-found");
    // The budget is settled after each answer.
    await new Promise((resolve) => setTimeout(resolve, 100));
    let queries = 0;
    const stop = e2e.database.observeQueries(() => {
      queries += 1;
    });
    try {
      for (let i = 4; i < 14; i++) {
        const refused = await request(e2e.server).get(guess(i));
        expectProblem(refused, 429, "rate-limited");
        expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
      }
      expect(queries).toBe(0);
    } finally {
      stop();
    }
    expect((await request(e2e.server).get(pathOf(known.url))).status).toBe(200);
  });

  it("limits fetches per address across feeds (the api's limiter, RATE_LIMIT_MAX)", async () => {
    let limited: request.Response | undefined;
    for (let i = 0; i < 45 && limited === undefined; i++) {
      const response = await request(e2e.server).get(`/v1/calendar-feeds/nothing-${i}`);
      if (response.status === 429) limited = response;
    }
    expect(limited).toBeDefined();
    expect(Number(limited?.headers["retry-after"])).toBeGreaterThan(0);
    expect(limited?.headers["ratelimit-policy"]).toMatch(/^default;q=40;/);
  });
});

describe("the 5,000-event bound on postgres", () => {
  let e2e: E2eApp;

  beforeAll(async () => {
    e2e = await startE2eApp("postgres", contractFixture(), {
      env: { RATE_LIMIT_MAX: "0", CALENDAR_FEED_RATE_LIMIT_MAX: "0" },
    });
    // The contract fixture's events are long past: only these are in the window.
    await e2e.database.pool.query("DELETE FROM events WHERE team_id = $1", [RUNNERS]);
  }, 120_000);

  afterAll(async () => {
    await e2e?.close();
  });

  async function insertMany(from: number, count: number): Promise<void> {
    const start = Date.now() + DAY;
    await e2e.database.pool.query(
      `INSERT INTO events (id, team_id, account_id, slug, name, duration_seconds, scheduled_at, offer_replay_purchase, price_in_cents, currency)
       SELECT 'ev_bulk_' || lpad(i::text, 5, '0'), $1, 'acc_jane', 'ev-bulk-' || i, 'Bulk ' || i, 1800,
              to_timestamp($2::float8 / 1000 + i * 60), false, 0, 'USD'
         FROM generate_series($3::int, $4::int) AS i`,
      [RUNNERS, start, from, from + count - 1],
    );
  }

  it("serves 5,000 events whole, and leaves out the latest beyond 5,000", async () => {
    await insertMany(0, 5_000);
    const feed = await create(e2e);
    const full = await request(e2e.server).get(pathOf(feed.url));
    expect(full.status).toBe(200);
    const parsed = parseFeed(full.text);
    expect(parsed.events).toHaveLength(5_000);
    expect(parsed.events.at(-1)?.summary).toBe("Bulk 4999");
    await insertMany(5_000, 1);
    const over = parseFeed((await request(e2e.server).get(pathOf(feed.url))).text);
    expect(over.events).toHaveLength(5_000);
    expect(over.events.map((event) => event.summary)).not.toContain("Bulk 5000");
    expect(over.events[0]?.summary).toBe("Bulk 0");
  });
});
