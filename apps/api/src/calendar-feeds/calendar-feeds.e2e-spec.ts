import { hashToken } from "@community/db";
import { CLIMBERS, contractFixture, RUNNERS, TOKENS } from "@community/fixtures/testing";
import request from "supertest";
import { expectProblem } from "../testing/contract-assertions";
import { type Backend, type E2eApp, startE2eApp } from "../testing/e2e-app";
import { type ParsedFeed, parseFeed } from "./testing/parse-feed";

/**
 * Calendar feeds (contract 11) against the real app and database: managing feeds (11.1) and the
 * feed itself (11.2), every feed read by two parsers from the registry (ical.js and node-ical).
 */
const FEEDS = "/v1/me/community/team/calendar-feeds";
const DAY = 86_400_000;
const auth = (token: string = TOKENS.runner) => ({ Authorization: `Bearer ${token}` });

interface CreatedFeed {
  id: string;
  name: string | null;
  created_at: string;
  last_fetched_at: string | null;
  url: string;
  webcal_url: string;
}

/** The start (UTC) of today, and an instant `days` from it. */
function dayStart(days = 0): Date {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) + days * DAY);
}

let serial = 0;

interface NewEvent {
  id?: string;
  team?: string;
  name?: string;
  description?: string | null;
  cover?: string | null;
  duration?: number;
  at: Date;
  canceled?: boolean;
}

/** Inserts events beside the app (as another system's SQL would), returning their ids. */
async function insertEvents(e2e: E2eApp, events: NewEvent[]): Promise<string[]> {
  const ids = events.map((event) => event.id ?? `ev_cal_${process.pid}_${serial++}`);
  await e2e.database.pool.query(
    `INSERT INTO events (id, team_id, account_id, slug, name, description, cover_url, duration_seconds, scheduled_at,
       canceled_at, offer_replay_purchase, price_in_cents, currency)
     SELECT id, team_id, 'acc_jane', id, name, description, cover, duration, at, CASE WHEN canceled THEN now() END, false, 1500, 'USD'
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::timestamptz[], $8::bool[])
         AS t(id, team_id, name, description, cover, duration, at, canceled)`,
    [
      ids,
      events.map((e) => e.team ?? RUNNERS),
      events.map((e, i) => e.name ?? `Event ${ids[i]}`),
      events.map((e) => (e.description === undefined ? null : e.description)),
      events.map((e) => e.cover ?? null),
      events.map((e) => e.duration ?? 3600),
      events.map((e) => e.at),
      events.map((e) => e.canceled ?? false),
    ],
  );
  return ids;
}

/** The feed path of a feed URL (the app is reached through supertest, not its public URL). */
const pathOf = (url: string) => new URL(url).pathname;

describe.each<Backend>(["postgres", "embedded"])("calendar feeds on %s", (backend) => {
  let e2e: E2eApp;

  beforeAll(async () => {
    e2e = await startE2eApp(backend, contractFixture(), {
      env: { RATE_LIMIT_MAX: "0", CALENDAR_FEED_RATE_LIMIT_MAX: "0", PUBLIC_URL: "https://cal.example.test" },
    });
  }, 120_000);

  afterAll(async () => {
    await e2e?.close();
  });

  afterEach(async () => {
    await e2e.database.pool.query("DELETE FROM calendar_feeds");
    await e2e.database.pool.query("DELETE FROM events WHERE id LIKE 'ev_cal_%'");
  });

  async function create(token: string = TOKENS.runner, body: object = {}): Promise<CreatedFeed> {
    const response = await request(e2e.server).post(FEEDS).set(auth(token)).send(body);
    expect(response.status).toBe(201);
    return response.body as CreatedFeed;
  }

  async function fetchFeed(feed: { url: string }): Promise<{ text: string; parsed: ParsedFeed; etag: string }> {
    const response = await request(e2e.server).get(pathOf(feed.url));
    expect(response.status).toBe(200);
    return { text: response.text, parsed: parseFeed(response.text), etag: response.headers.etag as string };
  }

  describe("managing feeds (11.1)", () => {
    it("creates a feed: 201, Location, its url and webcal_url with a cal_ secret stored only as a hash", async () => {
      const response = await request(e2e.server).post(FEEDS).set(auth()).send({ name: "My phone" });
      expect(response.status).toBe(201);
      const feed = response.body as CreatedFeed;
      expect(response.headers.location).toBe(`${FEEDS}/${feed.id}`);
      expect(feed).toMatchObject({ name: "My phone", last_fetched_at: null });
      expect(feed.url).toMatch(/^https:\/\/cal\.example\.test\/v1\/calendar-feeds\/cal_[A-Za-z0-9_-]{43}\.ics$/);
      expect(feed.webcal_url).toBe(feed.url.replace("https:", "webcal:"));
      const secret = /(cal_[A-Za-z0-9_-]{43})\.ics$/.exec(feed.url)?.[1] as string;
      expect(Buffer.from(secret.slice(4), "base64url")).toHaveLength(32);
      const { rows } = await e2e.database.pool.query("SELECT * FROM calendar_feeds WHERE id = $1", [feed.id]);
      expect(rows[0].secret_hash).toBe(hashToken(secret));
      expect(JSON.stringify(rows)).not.toContain(secret.slice(4));
    });

    it("takes no body, an empty object, or a name of 1 to 100 characters", async () => {
      const none = await request(e2e.server).post(FEEDS).set(auth());
      expect(none.status).toBe(201);
      expect(none.body.name).toBeNull();
      expect((await create(TOKENS.runner, {})).name).toBeNull();
      expect((await create(TOKENS.runner, { name: "x".repeat(100) })).name).toHaveLength(100);
    });

    it("refuses a bad body: 400 invalid-body naming name; not JSON: 415; not an object: 400", async () => {
      for (const name of ["", "x".repeat(101), 42, null]) {
        const response = await request(e2e.server).post(FEEDS).set(auth()).send({ name });
        expectProblem(response, 400, "invalid-body");
        expect(response.body.errors).toEqual([{ parameter: "name", message: expect.stringContaining("1 to 100") }]);
      }
      const text = await request(e2e.server).post(FEEDS).set(auth()).set("Content-Type", "text/plain").send("name");
      expectProblem(text, 415, "unsupported-media-type");
      const array = await request(e2e.server).post(FEEDS).set(auth()).send([1]);
      expectProblem(array, 400, "invalid-body");
      const broken = await request(e2e.server)
        .post(FEEDS)
        .set(auth())
        .set("Content-Type", "application/json")
        .send("{");
      expectProblem(broken, 400, "invalid-body");
    });

    it("lists the caller's feeds only, oldest first, never a secret; reads one; another user's is 404", async () => {
      const first = await create(TOKENS.runner, { name: "one" });
      const second = await create(TOKENS.runner, { name: "two" });
      const theirs = await create(TOKENS.climber);
      const list = await request(e2e.server).get(FEEDS).set(auth());
      expect(list.status).toBe(200);
      expect(list.body).toEqual({
        calendar_feeds: [
          { id: first.id, name: "one", created_at: first.created_at, last_fetched_at: null },
          { id: second.id, name: "two", created_at: second.created_at, last_fetched_at: null },
        ],
      });
      expect(list.text).not.toContain("cal_");
      const one = await request(e2e.server).get(`${FEEDS}/${first.id}`).set(auth());
      expect(one.body).toEqual({ id: first.id, name: "one", created_at: first.created_at, last_fetched_at: null });
      expectProblem(await request(e2e.server).get(`${FEEDS}/${theirs.id}`).set(auth()), 404, "calendar-feed-not-found");
      expectProblem(
        await request(e2e.server).delete(`${FEEDS}/${theirs.id}`).set(auth()),
        404,
        "calendar-feed-not-found",
      );
      expectProblem(
        await request(e2e.server).post(`${FEEDS}/${theirs.id}/rotate`).set(auth()),
        404,
        "calendar-feed-not-found",
      );
      expectProblem(await request(e2e.server).get(`${FEEDS}/nonsense`).set(auth()), 404, "calendar-feed-not-found");
      expect((await request(e2e.server).get(pathOf(theirs.url))).status).toBe(200);
    });

    it("holds at most 10 feeds per user (409 calendar-feed-limit)", async () => {
      for (let i = 0; i < 10; i++) await create();
      expectProblem(await request(e2e.server).post(FEEDS).set(auth()).send({}), 409, "calendar-feed-limit");
      await create(TOKENS.climber);
    });

    it("deletes a feed (204): its URL answers 404 at once", async () => {
      const feed = await create();
      expect((await request(e2e.server).get(pathOf(feed.url))).status).toBe(200);
      expect((await request(e2e.server).delete(`${FEEDS}/${feed.id}`).set(auth())).status).toBe(204);
      expectProblem(await request(e2e.server).get(pathOf(feed.url)), 404, "not-found");
    });

    it("rotates a feed: a new URL, the old one answers 404 at once", async () => {
      const feed = await create();
      const rotated = await request(e2e.server).post(`${FEEDS}/${feed.id}/rotate`).set(auth());
      expect(rotated.status).toBe(200);
      expect(rotated.body.id).toBe(feed.id);
      expect(rotated.body.url).not.toBe(feed.url);
      expectProblem(await request(e2e.server).get(pathOf(feed.url)), 404, "not-found");
      expect((await request(e2e.server).get(pathOf(rotated.body.url))).status).toBe(200);
    });

    it("needs a team (404 no-community-team) and a bearer token (401)", async () => {
      expectProblem(await request(e2e.server).post(FEEDS).set(auth(TOKENS.noTeam)).send({}), 404, "no-community-team");
      expectProblem(await request(e2e.server).get(FEEDS), 401, "unauthorized");
    });

    it("stops every feed of a user who leaves the team, for good: they stay stopped when the user comes back", async () => {
      const feed = await create();
      await e2e.database.pool.query("UPDATE users SET team_id = $1 WHERE id = 'user_runner'", [CLIMBERS]);
      try {
        expectProblem(await request(e2e.server).get(pathOf(feed.url)), 404, "not-found");
        await e2e.database.pool.query("UPDATE users SET team_id = $1 WHERE id = 'user_runner'", [RUNNERS]);
        expectProblem(await request(e2e.server).get(pathOf(feed.url)), 404, "not-found");
        expect((await request(e2e.server).get(FEEDS).set(auth())).body).toEqual({ calendar_feeds: [] });
        const fresh = await create();
        expect((await request(e2e.server).get(pathOf(fresh.url))).status).toBe(200);
      } finally {
        await e2e.database.pool.query("UPDATE users SET team_id = $1 WHERE id = 'user_runner'", [RUNNERS]);
      }
    });

    it("does not revive a feed whose user left and came back in a way the trigger did not see", async () => {
      const feed = await create();
      // A restore that skipped triggers, say: the lookup alone must still refuse the feed.
      await e2e.database.pool.query(
        "UPDATE calendar_feeds SET created_at = (SELECT team_since FROM users WHERE id = 'user_runner') - interval '1 second'",
      );
      expectProblem(await request(e2e.server).get(pathOf(feed.url)), 404, "not-found");
    });
  });

  describe("the feed (11.2)", () => {
    it("is an RFC 5545 calendar of the team's events from 90 days before today, in scheduled_at order", async () => {
      const bound = dayStart(-90);
      const [early, edge, later, soon] = await insertEvents(e2e, [
        { at: new Date(bound.getTime() - 1000), name: "too early" },
        { at: bound, name: "on the bound", duration: 0 },
        { at: dayStart(30), name: "later", cover: "https://img.example.com/a,b;c.png" },
        { at: dayStart(2), name: "soon", description: "bring shoes" },
      ]);
      await insertEvents(e2e, [{ at: dayStart(3), team: CLIMBERS, name: "the climbers' event" }]);
      const feed = await create();
      const response = await request(e2e.server).get(pathOf(feed.url));
      expect(response.status).toBe(200);
      expect(response.headers["content-type"]).toBe("text/calendar; charset=utf-8");
      expect(response.headers["cache-control"]).toBe("private");
      expect(response.headers.vary).toContain("Accept-Encoding");
      expect(response.headers["referrer-policy"]).toBe("no-referrer");
      expect(response.headers["x-robots-tag"]).toBe("noindex");
      expect(response.headers["www-authenticate"]).toBeUndefined();
      const text = response.text;
      expect(text.startsWith("BEGIN:VCALENDAR\r\nVERSION:2.0\r\n")).toBe(true);
      expect(text.endsWith("END:VCALENDAR\r\n")).toBe(true);
      expect(text.replace(/\r\n/g, "")).not.toMatch(/[\r\n]/);
      for (const line of text.split("\r\n")) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(75);
      const { calendar, events } = parseFeed(text);
      expect(calendar).toMatchObject({
        VERSION: "2.0",
        CALSCALE: "GREGORIAN",
        METHOD: "PUBLISH",
        NAME: "Runners",
        "X-WR-CALNAME": "Runners",
        "X-PUBLISHED-TTL": "PT1H",
        "REFRESH-INTERVAL": "PT1H",
      });
      expect(calendar.PRODID).toBeDefined();
      const ours = events.filter((event) => event.uid.startsWith("ev_cal_"));
      expect(ours.map((event) => event.summary)).toEqual(["on the bound", "soon", "later"]);
      expect(events.map((event) => event.start)).toEqual([...events.map((event) => event.start)].sort());
      expect(events.some((event) => event.uid.startsWith(`${early}@`))).toBe(false);
      const [onBound, soonEvent, laterEvent] = ours;
      expect(onBound).toMatchObject({
        uid: `${edge}@cal.example.test`,
        start: bound.toISOString(),
        end: bound.toISOString(),
      });
      expect(onBound?.description).toBeNull();
      expect(soonEvent).toMatchObject({
        uid: `${soon}@cal.example.test`,
        description: "bring shoes",
        status: "CONFIRMED",
        sequence: 0,
        end: new Date(dayStart(2).getTime() + 3600_000).toISOString(),
      });
      expect(laterEvent).toMatchObject({
        uid: `${later}@cal.example.test`,
        image: "https://img.example.com/a%2Cb%3Bc.png",
      });
      expect(text).toContain("IMAGE;VALUE=URI;DISPLAY=BADGE:");
      expect(text).toMatch(/DTSTART:\d{8}T\d{6}Z\r\n/);
      expect(text).not.toContain("the climbers' event");
      expect(text).not.toMatch(/1500|USD|acc_jane|Jane/);
    });

    it("escapes commas, semicolons, backslashes and newlines; keeps emoji; folds a 300-character line at 75 octets", async () => {
      const name = "Run, walk; rest \\ repeat 🏃‍♀️ 🎉";
      const description = `Line one\nLine two, with; all \\ of them\r\n${"é🏃".repeat(100)}${"x".repeat(100)}`;
      const [id] = await insertEvents(e2e, [{ at: dayStart(1), name, description }]);
      const feed = await create();
      const { text, parsed } = await fetchFeed(feed);
      const event = parsed.events.find((e) => e.uid.startsWith(`${id}@`));
      expect(event?.summary).toBe(name);
      expect(event?.description).toBe(description.replace(/\r\n/g, "\n"));
      expect(text).toContain("SUMMARY:Run\\, walk\\; rest \\\\ repeat");
      for (const line of text.split("\r\n")) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(75);
      // Folding never splits a character: every line is valid UTF-8 on its own.
      for (const line of text.split("\r\n"))
        expect(Buffer.from(Buffer.from(line).toString("utf8")).equals(Buffer.from(line))).toBe(true);
      const raw = Buffer.from(text);
      expect(raw.toString("utf8").includes("\uFFFD")).toBe(false);
    });

    it("shows a canceled event as STATUS:CANCELLED; a rename raises SEQUENCE and DTSTAMP, keeps UID; nothing changed keeps both", async () => {
      const [id] = await insertEvents(e2e, [{ at: dayStart(5), name: "Before" }]);
      const feed = await create();
      const find = (parsed: ParsedFeed) => parsed.events.find((e) => e.uid === `${id}@cal.example.test`);
      const first = find((await fetchFeed(feed)).parsed);
      const again = find((await fetchFeed(feed)).parsed);
      expect(again).toEqual(first);
      await e2e.database.pool.query("UPDATE events SET price_in_cents = 999 WHERE id = $1", [id]);
      expect(find((await fetchFeed(feed)).parsed)).toEqual(first);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      await e2e.database.pool.query("UPDATE events SET name = 'After' WHERE id = $1", [id]);
      const renamed = find((await fetchFeed(feed)).parsed);
      expect(renamed).toMatchObject({ uid: first?.uid, summary: "After" });
      expect(renamed?.sequence).toBeGreaterThan(first?.sequence as number);
      expect((renamed?.stamp as string) > (first?.stamp as string)).toBe(true);
      await e2e.database.pool.query("UPDATE events SET canceled_at = now() WHERE id = $1", [id]);
      const canceled = find((await fetchFeed(feed)).parsed);
      expect(canceled).toMatchObject({ status: "CANCELLED" });
      expect(canceled?.sequence).toBeGreaterThan(renamed?.sequence as number);
      // A writer cannot lower the sequence.
      await e2e.database.pool.query("UPDATE events SET calendar_sequence = 0 WHERE id = $1", [id]);
      expect(find((await fetchFeed(feed)).parsed)?.sequence).toBe(canceled?.sequence);
    });

    it("drops an event moved to another team", async () => {
      const [id] = await insertEvents(e2e, [{ at: dayStart(4), name: "Moving" }]);
      const feed = await create();
      expect((await fetchFeed(feed)).text).toContain(`UID:${id}@`);
      await e2e.database.pool.query("UPDATE events SET team_id = $1 WHERE id = $2", [CLIMBERS, id]);
      expect((await fetchFeed(feed)).text).not.toContain(`UID:${id}@`);
    });

    it("answers 304 to the current ETag, and a new ETag once an event changes", async () => {
      const [id] = await insertEvents(e2e, [{ at: dayStart(6) }]);
      const feed = await create();
      const { etag } = await fetchFeed(feed);
      expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
      const current = await request(e2e.server).get(pathOf(feed.url)).set("If-None-Match", etag);
      expect(current.status).toBe(304);
      expect(current.headers.etag).toBe(etag);
      expect(current.text).toBe("");
      await e2e.database.pool.query("UPDATE events SET name = 'changed' WHERE id = $1", [id]);
      const changed = await request(e2e.server).get(pathOf(feed.url)).set("If-None-Match", etag);
      expect(changed.status).toBe(200);
      expect(changed.headers.etag).not.toBe(etag);
    });

    it("compresses with gzip or br on request, with its own ETag; HEAD has the headers and no body", async () => {
      await insertEvents(e2e, [{ at: dayStart(1) }, { at: dayStart(2) }]);
      const feed = await create();
      const plain = await request(e2e.server).get(pathOf(feed.url)).set("Accept-Encoding", "identity");
      // supertest decodes gzip and br as a client does.
      const gzip = await request(e2e.server).get(pathOf(feed.url)).set("Accept-Encoding", "gzip");
      expect(gzip.headers["content-encoding"]).toBe("gzip");
      expect(gzip.text).toBe(plain.text);
      expect(gzip.headers.etag).not.toBe(plain.headers.etag);
      const br = await request(e2e.server).get(pathOf(feed.url)).set("Accept-Encoding", "br, gzip");
      expect(br.headers["content-encoding"]).toBe("br");
      const head = await request(e2e.server).head(pathOf(feed.url));
      expect(head.status).toBe(200);
      expect(head.headers.etag).toBe(plain.headers.etag);
      expect(head.headers["content-type"]).toBe("text/calendar; charset=utf-8");
      expect(head.text ?? "").toBe("");
    });

    it("answers every dead secret with the same 404 not-found, without the secret", async () => {
      const feed = await create();
      const deleted = await create();
      await request(e2e.server).delete(`${FEEDS}/${deleted.id}`).set(auth());
      const made = `cal_${Buffer.alloc(32, 7).toString("base64url")}`;
      const answers: unknown[] = [];
      for (const path of [
        pathOf(deleted.url),
        `/v1/calendar-feeds/${made}.ics`,
        "/v1/calendar-feeds/cal_short.ics",
        `/v1/calendar-feeds/${made}`,
        `/v1/calendar-feeds/${made}.ics/more`,
      ]) {
        const response = await request(e2e.server).get(path);
        expectProblem(response, 404, "not-found");
        expect(response.headers["www-authenticate"]).toBeUndefined();
        expect(response.text).not.toContain(`cal_${made.slice(4, 12)}`);
        expect(response.text).not.toContain(deleted.url.slice(-30));
        answers.push({ ...response.body, instance: undefined });
        expect(response.body.instance).toBe("/v1/calendar-feeds/REDACTED.ics");
      }
      expect(answers.map((a) => JSON.stringify(a))).toEqual(answers.map(() => JSON.stringify(answers[0])));
      expect((await request(e2e.server).get(pathOf(feed.url))).status).toBe(200);
    });

    it("answers 405 with Allow: GET, HEAD to any other method", async () => {
      const feed = await create();
      for (const method of ["post", "put", "delete", "patch"] as const) {
        const response = await request(e2e.server)[method](pathOf(feed.url));
        expectProblem(response, 405, "method-not-allowed");
        expect(response.headers.allow).toBe("GET, HEAD");
        expect(response.text).not.toContain(pathOf(feed.url).slice(20));
      }
    });

    it("notes last_fetched_at at the first fetch, then at most every 5 minutes", async () => {
      const feed = await create();
      await fetchFeed(feed);
      const first = (await request(e2e.server).get(`${FEEDS}/${feed.id}`).set(auth())).body.last_fetched_at;
      expect(first).not.toBeNull();
      await fetchFeed(feed);
      expect((await request(e2e.server).get(`${FEEDS}/${feed.id}`).set(auth())).body.last_fetched_at).toBe(first);
      await e2e.database.pool.query("UPDATE calendar_feeds SET last_fetched_at = now() - interval '6 minutes'");
      await fetchFeed(feed);
      const later = (await request(e2e.server).get(`${FEEDS}/${feed.id}`).set(auth())).body.last_fetched_at;
      expect(later > first).toBe(true);
    });
  });
});
