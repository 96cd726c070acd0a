import type { FixtureEvent, FixtureGuide } from "@community/domain";
import { CLIMBERS, contractFixture, eventStatus, RUNNERS, TOKENS } from "@community/fixtures/testing";
import request from "supertest";
import { expectProblem, parseLinks } from "../testing/contract-assertions";
import { type Backend, startE2eApp } from "../testing/e2e-app";
import { appForSuite } from "../testing/suite-app";

/**
 * Cursor walks and filters (contract 9.1 and 9.2) on both backends: the order and exactly-once
 * walks under inserts and deletes, the binding of cursors, and filtered pages in both modes.
 */
const fixture = contractFixture();
const EVENTS = "/v1/me/community/team/events";
const GUIDES = "/v1/me/community/team/guides";

const at = (timestamp: string | null) => (timestamp === null ? Number.POSITIVE_INFINITY : Date.parse(timestamp));
const byEventOrder = (a: FixtureEvent, b: FixtureEvent) =>
  at(b.scheduled_at) - at(a.scheduled_at) || (a.id < b.id ? -1 : 1);
const byGuideOrder = (a: FixtureGuide, b: FixtureGuide) =>
  at(b.published_at) - at(a.published_at) || (a.id < b.id ? -1 : 1);
const runnerEvents = fixture.events.filter((e) => e.team_id === RUNNERS).sort(byEventOrder);
const runnerGuides = fixture.guides.filter((g) => g.team_id === RUNNERS).sort(byGuideOrder);

const backends: Backend[] = ["postgres", "embedded"];

describe.each(backends)("cursor walks and filters on %s", (backend) => {
  const e2e = appForSuite(() => startE2eApp(backend, fixture), 120_000);

  const get = (url: string, token: string = TOKENS.runner) =>
    request(e2e.server).get(url).set("Authorization", `Bearer ${token}`);

  /** Follows next_cursor from `start` (changing per_page as `perPage(n)` says); the ids in order. */
  async function walk(
    path: string,
    filters = "",
    perPage: (page: number) => number = () => 4,
    between: (page: number) => Promise<void> = async () => undefined,
  ): Promise<string[]> {
    const ids: string[] = [];
    let cursor = "";
    for (let page = 0; page < 100; page++) {
      const response = await get(`${path}?cursor=${encodeURIComponent(cursor)}&per_page=${perPage(page)}${filters}`);
      expect(response.status).toBe(200);
      ids.push(...response.body.guides.map((item: { id: string }) => item.id));
      const next = response.body.meta.pagination.next_cursor as string | null;
      if (next === null) {
        expect(response.headers.link).toBeUndefined();
        return ids;
      }
      cursor = next;
      await between(page);
    }
    throw new Error("the walk did not end");
  }

  describe("cursor mode (9.1)", () => {
    it("answers { guides, meta: { pagination: { per_page, next_cursor } } } without totals, Link rel=next only", async () => {
      const response = await get(`${EVENTS}?cursor=&per_page=5`);
      expect(response.status).toBe(200);
      expect(Object.keys(response.body).sort()).toEqual(["guides", "meta"]);
      expect(Object.keys(response.body.meta.pagination).sort()).toEqual(["next_cursor", "per_page"]);
      expect(response.body.meta.pagination.per_page).toBe(5);
      expect(response.body.guides.map((e: { id: string }) => e.id)).toEqual(runnerEvents.slice(0, 5).map((e) => e.id));
      expect(response.headers["x-total-count"]).toBeUndefined();
      expect(response.headers["cache-control"]).toBe("private, no-cache");
      expect(response.headers.vary).toBe("Authorization, Accept-Encoding");
      const cursor = response.body.meta.pagination.next_cursor as string;
      expect(parseLinks(response.headers.link)).toEqual({
        next: `${EVENTS}?cursor=${encodeURIComponent(cursor)}&per_page=5`,
      });
      const next = await get(parseLinks(response.headers.link).next as string);
      expect(next.body.guides.map((e: { id: string }) => e.id)).toEqual(runnerEvents.slice(5, 10).map((e) => e.id));
    });

    it.each([
      [EVENTS, runnerEvents.map((e) => e.id)],
      [GUIDES, runnerGuides.map((g) => g.id)],
    ])("walks %s in the list's order, per_page changing on the way, with no empty last page", async (path, ids) => {
      expect(await walk(path, "", (page) => 1 + (page % 5))).toEqual(ids);
      const exact = await get(`${path}?cursor=&per_page=${ids.length}`);
      expect(exact.body.meta.pagination.next_cursor).toBeNull();
      expect(exact.body.guides).toHaveLength(ids.length);
    });

    it("returns every item that stays in the list exactly once while items are inserted and deleted mid-walk", async () => {
      const insert = (id: string, scheduledAt: string) =>
        e2e.database.pool.query(
          `INSERT INTO events (id, team_id, account_id, slug, name, duration_seconds, scheduled_at, offer_replay_purchase,
                               price_in_cents, currency)
           VALUES ($1::text, $2, 'acc_jane', $1::text, $1::text, 60, $3, false, 0, 'USD')`,
          [id, RUNNERS, scheduledAt],
        );
      const before = runnerEvents.map((e) => e.id);
      const deleted = [before[2] as string, before[15] as string];
      try {
        const seen = await walk(
          EVENTS,
          "",
          () => 4,
          async (page) => {
            if (page !== 1) return;
            // Before, among and after the items already served, at keys shared with existing items.
            await insert("ev_walk_a", "2026-03-08T18:30:00Z");
            await insert("ev_walk_b", "2026-03-04T18:30:00Z");
            await insert("ev_walk_c", "2026-03-01T18:30:00Z");
            await e2e.database.pool.query("DELETE FROM events WHERE id = ANY($1)", [deleted]);
          },
        );
        expect(new Set(seen).size).toBe(seen.length);
        const survivors = before.filter((id) => !deleted.includes(id));
        for (const id of survivors) expect(seen).toContain(id);
        expect(seen).not.toContain(deleted[1]);
        // What the walk saw is in the list's order.
        const order = (await get(`${EVENTS}?per_page=100`)).body.guides.map((e: { id: string }) => e.id);
        expect(seen.filter((id) => id !== deleted[0])).toEqual(order.filter((id: string) => seen.includes(id)));
      } finally {
        await e2e.database.pool.query("DELETE FROM events WHERE id LIKE 'ev_walk_%'");
        await e2e.database.pool.query(
          `INSERT INTO events (id, team_id, account_id, slug, name, description, cover_url, duration_seconds, scheduled_at,
                               live_at, completed_at, canceled_at, offer_replay_purchase, price_in_cents, currency)
           SELECT f.id, f.team_id, f.account_id, f.slug, f.name, f.description, f.cover_url, f.duration_seconds,
                  f.scheduled_at::timestamptz, f.live_at::timestamptz, f.completed_at::timestamptz,
                  f.canceled_at::timestamptz, f.offer_replay_purchase, (f.price->>'value_in_cents')::int,
                  f.price->>'currency'
             FROM jsonb_to_recordset($1::jsonb) AS f(id text, team_id text, account_id text, slug text, name text,
                  description text, cover_url text, duration_seconds int, scheduled_at text, live_at text,
                  completed_at text, canceled_at text, offer_replay_purchase boolean, price jsonb)
           ON CONFLICT (id) DO NOTHING`,
          [JSON.stringify(runnerEvents.filter((e) => deleted.includes(e.id)))],
        );
      }
    });

    it("answers 400 naming both cursor and page when they come together", async () => {
      const response = await get(`${EVENTS}?cursor=&page=1`);
      expectProblem(response, 400, "invalid-query");
      expect(response.body.errors.map((e: { parameter: string }) => e.parameter).sort()).toEqual(["cursor", "page"]);
    });

    it("answers 400 naming cursor when it is given twice", async () => {
      const response = await get(`${EVENTS}?cursor=&cursor=`);
      expectProblem(response, 400, "invalid-query");
      expect(response.body.errors).toEqual([{ parameter: "cursor", message: "must be given at most once" }]);
    });

    describe("a cursor is bound to its list, filters and team", () => {
      let cursor: string;
      beforeAll(async () => {
        cursor = (await get(`${EVENTS}?cursor=&per_page=3&status=scheduled,canceled`)).body.meta.pagination.next_cursor;
      });

      const altered = (value: string) => {
        const [payload, mac] = value.split(".") as [string, string];
        const decoded = JSON.parse(Buffer.from(payload, "base64url").toString());
        decoded.i = "ev_r_00";
        return `${Buffer.from(JSON.stringify(decoded)).toString("base64url")}.${mac}`;
      };

      it.each([
        ["used on another list", () => `${GUIDES}?cursor=${encodeURIComponent(cursor)}`, TOKENS.runner],
        [
          "used by another team",
          () => `${EVENTS}?cursor=${encodeURIComponent(cursor)}&status=scheduled,canceled`,
          TOKENS.climber,
        ],
        [
          "used with other filters",
          () => `${EVENTS}?cursor=${encodeURIComponent(cursor)}&status=scheduled`,
          TOKENS.runner,
        ],
        ["used without its filters", () => `${EVENTS}?cursor=${encodeURIComponent(cursor)}`, TOKENS.runner],
        [
          "truncated",
          () => `${EVENTS}?cursor=${encodeURIComponent(cursor.slice(0, -3))}&status=scheduled,canceled`,
          TOKENS.runner,
        ],
        [
          "altered",
          () => `${EVENTS}?cursor=${encodeURIComponent(altered(cursor))}&status=scheduled,canceled`,
          TOKENS.runner,
        ],
        ["forged", () => `${EVENTS}?cursor=eyJrIjoiMjAyNi0wMy0wMSIsImkiOiJ4In0.AAAAAAAAAAAAAAAAAAAAAA`, TOKENS.runner],
      ])("answers 400 naming cursor when %s", async (_case, url, token) => {
        const response = await get(url(), token);
        expectProblem(response, 400, "invalid-query");
        expect(response.body.errors.map((e: { parameter: string }) => e.parameter)).toEqual(["cursor"]);
      });

      it("answers 400 naming cursor, not 404, to a user without a team", async () => {
        const response = await get(`${EVENTS}?cursor=${encodeURIComponent(cursor)}`, TOKENS.noTeam);
        expectProblem(response, 400, "invalid-query");
        expectProblem(await get(`${EVENTS}?cursor=`, TOKENS.noTeam), 404, "no-community-team");
      });

      it("continues with the same filters in a canonical spelling", async () => {
        const response = await get(`${EVENTS}?cursor=${encodeURIComponent(cursor)}&status=canceled,scheduled,canceled`);
        expect(response.status).toBe(200);
      });
    });
  });

  describe("filters (9.2)", () => {
    it.each([
      ["scheduled"],
      ["live"],
      ["completed"],
      ["canceled"],
      ["live,completed"],
      ["canceled,scheduled,live,completed"],
    ])("status=%s selects by the data alone, in page and cursor mode", async (status) => {
      const wanted = runnerEvents.filter((e) => status.split(",").includes(eventStatus(e))).map((e) => e.id);
      const page = await get(`${EVENTS}?per_page=100&status=${status}`);
      expect(page.status).toBe(200);
      expect(page.body.guides.map((e: { id: string }) => e.id)).toEqual(wanted);
      expect(page.headers["x-total-count"]).toBe(String(wanted.length));
      expect(await walk(EVENTS, `&status=${status}`, () => 2)).toEqual(wanted);
    });

    it("a scheduled window is half-open, takes offsets and fractions, and combines with status", async () => {
      const from = "2026-03-03T18:30:00Z";
      const to = "2026-03-06T18:30:00Z";
      const wanted = runnerEvents
        .filter((e) => at(e.scheduled_at) >= at(from) && at(e.scheduled_at) < at(to) && eventStatus(e) === "scheduled")
        .map((e) => e.id);
      expect(wanted.length).toBeGreaterThan(0);
      const query = `&scheduled_from=2026-03-03T20:30:00%2B02:00&scheduled_to=2026-03-06T18:30:00.000Z&status=scheduled`;
      const page = await get(`${EVENTS}?per_page=100${query}`);
      expect(page.body.guides.map((e: { id: string }) => e.id)).toEqual(wanted);
      expect(await walk(EVENTS, query, () => 1)).toEqual(wanted);
    });

    it("guides: draft, published, and a window that never matches drafts", async () => {
      const drafts = runnerGuides.filter((g) => g.published_at === null).map((g) => g.id);
      const published = runnerGuides.filter((g) => g.published_at !== null).map((g) => g.id);
      const ids = async (query: string) =>
        (await get(`${GUIDES}?per_page=100${query}`)).body.guides.map((g: { id: string }) => g.id);
      expect(await ids("&status=draft")).toEqual(drafts);
      expect(await ids("&status=published")).toEqual(published);
      expect(await ids("&published_from=2000-01-01T00:00:00Z")).toEqual(published);
      expect(await ids("&published_to=2026-02-01T09:00:00Z")).toEqual(
        runnerGuides
          .filter((g) => g.published_at !== null && at(g.published_at) < at("2026-02-01T09:00:00Z"))
          .map((g) => g.id),
      );
      expect(await walk(GUIDES, "&status=draft", () => 1)).toEqual(drafts);
    });

    it("page mode: totals and Link describe the filtered set and carry the filters", async () => {
      const wanted = runnerEvents.filter((e) => ["scheduled", "canceled"].includes(eventStatus(e)));
      const response = await get(`${EVENTS}?per_page=3&page=2&status=canceled,scheduled`);
      expect(response.status).toBe(200);
      const last = Math.ceil(wanted.length / 3);
      expect(response.body.meta.pagination).toEqual({ current_page: 2, per_page: 3, total_pages: last });
      expect(response.headers["x-total-count"]).toBe(String(wanted.length));
      const filters = "&status=scheduled%2Ccanceled";
      expect(parseLinks(response.headers.link)).toEqual({
        first: `${EVENTS}?page=1&per_page=3${filters}`,
        prev: `${EVENTS}?page=1&per_page=3${filters}`,
        next: `${EVENTS}?page=3&per_page=3${filters}`,
        last: `${EVENTS}?page=${last}&per_page=3${filters}`,
      });
    });

    it("a filtered page has a tag of its own, and a 304 for it", async () => {
      const plain = await get(`${EVENTS}?per_page=5`);
      const filtered = await get(`${EVENTS}?per_page=5&status=live`);
      expect(filtered.headers.etag).not.toBe(plain.headers.etag);
      const withPlainTag = await get(`${EVENTS}?per_page=5&status=live`).set(
        "If-None-Match",
        plain.headers.etag as string,
      );
      expect(withPlainTag.status).toBe(200);
      const revalidated = await get(`${EVENTS}?per_page=5&status=live`).set(
        "If-None-Match",
        filtered.headers.etag as string,
      );
      expect(revalidated.status).toBe(304);
    });

    it.each([
      [`${EVENTS}?status=`, ["status"]],
      [`${EVENTS}?status=Live`, ["status"]],
      [`${EVENTS}?status=live,draft`, ["status"]],
      [`${EVENTS}?status=live&status=canceled`, ["status"]],
      [`${EVENTS}?scheduled_from=2026-03-01T18:30:00`, ["scheduled_from"]],
      [`${EVENTS}?scheduled_to=2026-02-30T18:30:00Z`, ["scheduled_to"]],
      [`${EVENTS}?scheduled_from=2026-03-01`, ["scheduled_from"]],
      [
        `${EVENTS}?scheduled_from=2026-03-02T00:00:00Z&scheduled_to=2026-03-02T00:00:00Z`,
        ["scheduled_from", "scheduled_to"],
      ],
      [
        `${EVENTS}?scheduled_from=2026-03-02T00:00:00Z&scheduled_to=2026-03-01T00:00:00Z&cursor=`,
        ["scheduled_from", "scheduled_to"],
      ],
      [`${EVENTS}?status=late&scheduled_from=x&per_page=0`, ["per_page", "status", "scheduled_from"]],
      [`${GUIDES}?status=live`, ["status"]],
      [
        `${GUIDES}?published_from=2026-03-02T00:00:00Z&published_to=2026-03-01T00:00:00Z`,
        ["published_from", "published_to"],
      ],
    ])("answers %s with 400 naming %j", async (url, parameters) => {
      const response = await get(url);
      expectProblem(response, 400, "invalid-query");
      expect(response.body.errors.map((e: { parameter: string }) => e.parameter)).toEqual(parameters);
      // Nothing the client sent beyond page and per_page is echoed.
      expect(response.body.instance).not.toMatch(/status|scheduled|published|cursor/);
    });

    it("never reaches another team's items", async () => {
      const response = await get(`${EVENTS}?per_page=100&status=scheduled,live,completed,canceled`, TOKENS.climber);
      const climberIds = fixture.events.filter((e) => e.team_id === CLIMBERS).map((e) => e.id);
      expect(response.body.guides.map((e: { id: string }) => e.id).sort()).toEqual(climberIds.sort());
    });
  });
});
