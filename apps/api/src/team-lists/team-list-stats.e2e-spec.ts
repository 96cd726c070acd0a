import {
  EVENTS_LIST,
  GUIDES_LIST,
  type Queryable,
  SEEK_MIN_OFFSET,
  TeamListReader,
  TeamListWalker,
} from "@community/db/lists";
import { statusCountMismatches } from "@community/db/testing";
import type { FixtureEvent, FixtureFile, FixtureGuide } from "@community/domain";
import { fixtureEvent, fixtureGuide } from "@community/domain/testing";
import { loadFixture } from "@community/fixtures";
import request from "supertest";
import { type Backend, type E2eApp, startE2eApp } from "../testing/e2e-app";

const BIG = "team_big";
const SMALL = "team_small";
const TOKEN = { big: "tok-big", small: "tok-small" };
// Enough items for pages deeper than SEEK_MIN_OFFSET, so deep pages go through boundary seeks.
const BIG_SIZE = SEEK_MIN_OFFSET + 250;

const empty: FixtureFile = { accounts: [], teams: [], users: [], access_tokens: [], events: [], guides: [] };

function event(team: string, i: number, scheduledAt: string): FixtureEvent {
  return fixtureEvent(`ev_${team}_${String(i).padStart(5, "0")}`, {
    team_id: team,
    slug: `event-${i}`,
    name: `Event ${i}`,
    duration_seconds: 60,
    scheduled_at: scheduledAt,
    price: { value_in_cents: 100, currency: "USD" },
  });
}

/** Three items per instant (ties on the sort key), newest first by index. */
const instant = (i: number) =>
  `${new Date(Date.UTC(2026, 0, 1) + Math.floor(i / 3) * 60_000).toISOString().slice(0, 19)}Z`;

function guide(team: string, i: number): FixtureGuide {
  return fixtureGuide(`gd_${team}_${String(i).padStart(5, "0")}`, {
    team_id: team,
    slug: `guide-${i}`,
    name: `Guide ${i}`,
    description: null,
    // one in ten is a draft: drafts lead the list and boundaries fall among them too
    published_at: i % 10 === 0 ? null : instant(i),
  });
}

function fixture(): FixtureFile {
  return {
    accounts: [
      { id: "acc_1", slug: "acc-1", name: "One", partner: false, profile_image_url: null, cover_image_url: null },
    ],
    teams: [
      { id: BIG, name: "Big" },
      { id: SMALL, name: "Small" },
    ],
    users: [
      { id: "u_big", name: "B", team_id: BIG },
      { id: "u_small", name: "S", team_id: SMALL },
    ],
    access_tokens: [
      { token: TOKEN.big, user_id: "u_big", client_id: "c", expires_at: null, revoked: false },
      { token: TOKEN.small, user_id: "u_small", client_id: "c", expires_at: null, revoked: false },
    ],
    events: [
      ...Array.from({ length: BIG_SIZE }, (_, i) => event(BIG, i, instant(i))),
      ...Array.from({ length: 7 }, (_, i) => event(SMALL, i, instant(i))),
    ],
    guides: [...Array.from({ length: BIG_SIZE }, (_, i) => guide(BIG, i)), guide(SMALL, 1)],
  };
}

describe.each<Backend>(["postgres", "embedded"])("team list stats and page boundaries on %s", (backend) => {
  let e2e: E2eApp;
  const statements: string[] = [];
  // The pool, recording every statement the readers send.
  const db: Queryable = {
    query(text, values) {
      statements.push(text);
      return e2e.database.pool.query(text, values);
    },
  };

  /** The contract's order, computed from the database rows without the list SQL. */
  async function expectedEventIds(team: string): Promise<string[]> {
    const { rows } = await e2e.database.pool.query<{ id: string; at: Date }>(
      "SELECT id, scheduled_at AS at FROM events WHERE team_id = $1",
      [team],
    );
    return rows
      .sort((a, b) => b.at.getTime() - a.at.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((r) => r.id);
  }

  async function statsMatchCounts(): Promise<void> {
    const { rows } = await e2e.database.pool.query(
      `SELECT t.id AS team_id, l.list, COALESCE(s.item_count, 0)::int AS kept,
              (CASE l.list WHEN 'events' THEN (SELECT count(*) FROM events e WHERE e.team_id = t.id)
                           ELSE (SELECT count(*) FROM guides g WHERE g.team_id = t.id) END)::int AS counted
         FROM teams t CROSS JOIN (VALUES ('events'), ('guides')) l(list)
         LEFT JOIN team_list_stats s ON s.team_id = t.id AND s.list = l.list`,
    );
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect({ ...row, kept: row.kept }).toEqual({ ...row, kept: row.counted });
  }

  const get = (token: string, query = "") =>
    request(e2e.server).get(`/v1/me/community/team/events${query}`).set("Authorization", `Bearer ${token}`);

  beforeAll(async () => {
    e2e = await startE2eApp(backend, fixture());
  });

  afterAll(async () => {
    await e2e?.close();
  });

  it("keeps every team's counts equal to its rows after loads into several teams", async () => {
    await statsMatchCounts();
    // a second load: new rows in both teams, and an event moved from one team to the other
    await loadFixture(e2e.database.prisma, {
      ...empty,
      events: [event(SMALL, 100, instant(5)), { ...event(BIG, 3, instant(3)), team_id: SMALL, slug: "moved" }],
      guides: [guide(SMALL, 200), guide(BIG, BIG_SIZE)],
    });
    await statsMatchCounts();
    expect((await get(TOKEN.small)).headers["x-total-count"]).toBe("9");
    expect((await get(TOKEN.big)).headers["x-total-count"]).toBe(String(BIG_SIZE - 1));
    // move it back, so the other tests see the fixture's team sizes
    await loadFixture(e2e.database.prisma, { ...empty, events: [event(BIG, 3, instant(3))] });
    await e2e.database.pool.query("DELETE FROM events WHERE id = $1", [event(SMALL, 100, "").id]);
    await statsMatchCounts();
  });

  it("serves deep pages through boundary seeks, exactly as the plain offset order", async () => {
    const reader = new TeamListReader(db, EVENTS_LIST);
    // The team's first deep page waits for its boundaries: the pages after it seek at once.
    await reader.read({ teamId: BIG, offset: SEEK_MIN_OFFSET, limit: 1 });
    const expected = await expectedEventIds(BIG);
    for (const [offset, limit] of [
      [SEEK_MIN_OFFSET, 100],
      [SEEK_MIN_OFFSET + 37, 10],
      [BIG_SIZE - 5, 100],
    ] as const) {
      statements.length = 0;
      const page = await reader.read({ teamId: BIG, offset, limit });
      expect(statements).toHaveLength(1);
      expect(statements[0]).toContain("$7");
      expect(page.items.map((e) => e.id)).toEqual(expected.slice(offset, offset + limit));
      expect(page.total).toBe(BIG_SIZE);
    }
  });

  it("reads the boundaries on a team's first deep page and again after a write, then seeks", async () => {
    const reader = new TeamListReader(db, EVENTS_LIST);
    statements.length = 0;
    const first = await reader.read({ teamId: BIG, offset: SEEK_MIN_OFFSET + 10, limit: 10 });
    expect(statements.at(-1)).toContain("$7");
    expect(statements.some((text) => text.includes("row_number()"))).toBe(true);
    expect(first.items.map((e) => e.id)).toEqual(
      (await expectedEventIds(BIG)).slice(SEEK_MIN_OFFSET + 10, SEEK_MIN_OFFSET + 20),
    );

    await loadFixture(e2e.database.prisma, { ...empty, events: [event(BIG, 7, "2031-01-01T00:00:00Z")] });
    statements.length = 0;
    const after = await reader.read({ teamId: BIG, offset: SEEK_MIN_OFFSET + 10, limit: 10 });
    // a seek against the old version (no rows), the boundaries again, a seek that holds
    expect(statements.filter((text) => text.includes("$7"))).toHaveLength(2);
    expect(after.version).not.toBe(first.version);
    expect(after.items.map((e) => e.id)).toEqual(
      (await expectedEventIds(BIG)).slice(SEEK_MIN_OFFSET + 10, SEEK_MIN_OFFSET + 20),
    );
  });

  it("seeks among drafts and published guides alike, drafts first", async () => {
    const reader = new TeamListReader(db, GUIDES_LIST);
    const { rows } = await e2e.database.pool.query<{ id: string; at: Date | null }>(
      "SELECT id, published_at AS at FROM guides WHERE team_id = $1",
      [BIG],
    );
    const key = (at: Date | null) => (at === null ? Number.POSITIVE_INFINITY : at.getTime());
    const expected = rows
      .sort((a, b) => key(b.at) - key(a.at) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((r) => r.id);
    for (const offset of [0, SEEK_MIN_OFFSET, SEEK_MIN_OFFSET + 123]) {
      statements.length = 0;
      const page = await reader.read({ teamId: BIG, offset, limit: 100 });
      expect(page.items.map((g) => g.id)).toEqual(expected.slice(offset, offset + 100));
      // deep pages seek (the first one after reading the boundaries), shallow ones do not
      expect(statements.at(-1)?.includes("$7")).toBe(offset >= SEEK_MIN_OFFSET);
    }
  });

  it("shows loader writes on the next deep page: new rows, moved timestamps, deletes; new ETag", async () => {
    const reader = new TeamListReader(db, EVENTS_LIST);
    // boundaries read before the writes below, so the next deep page finds them stale
    await reader.read({ teamId: BIG, offset: SEEK_MIN_OFFSET, limit: 1 });
    const deep = `?page=${SEEK_MIN_OFFSET / 100 + 1}&per_page=100`;
    const before = await get(TOKEN.big, deep);
    expect(before.status).toBe(200);

    // the newest event becomes the oldest; a new newest one arrives; one deep event is deleted
    const moved = event(BIG, 0, "2020-01-01T00:00:00Z");
    await loadFixture(e2e.database.prisma, {
      ...empty,
      events: [moved, event(BIG, BIG_SIZE + 1, "2030-01-01T00:00:00Z")],
    });
    await e2e.database.pool.query("DELETE FROM events WHERE id = $1", [event(BIG, 1100, "").id]);

    const expected = await expectedEventIds(BIG);
    expect(expected.at(-1)).toBe(moved.id);
    statements.length = 0;
    const page = await reader.read({ teamId: BIG, offset: SEEK_MIN_OFFSET, limit: 100 });
    // a seek against the old version (no rows), the boundaries again, a seek that holds
    expect(statements.filter((text) => text.includes("$7"))).toHaveLength(2);
    expect(page.items.map((e) => e.id)).toEqual(expected.slice(SEEK_MIN_OFFSET, SEEK_MIN_OFFSET + 100));

    const after = await get(TOKEN.big, deep);
    expect(after.body.guides.map((e: { id: string }) => e.id)).toEqual(
      expected.slice(SEEK_MIN_OFFSET, SEEK_MIN_OFFSET + 100),
    );
    expect(after.headers["x-total-count"]).toBe(String(BIG_SIZE));
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect((await get(TOKEN.big, deep).set("If-None-Match", before.headers.etag as string)).status).toBe(200);
    expect((await get(TOKEN.big, deep).set("If-None-Match", after.headers.etag as string)).status).toBe(304);
    const last = await get(TOKEN.big, `?page=${Math.ceil(BIG_SIZE / 100)}&per_page=100`);
    expect(last.body.guides.at(-1).id).toBe(moved.id);
    await statsMatchCounts();
  });

  it("never answers 304 to another team's tag for the same page", async () => {
    const big = await get(TOKEN.big);
    const small = await get(TOKEN.small).set("If-None-Match", big.headers.etag as string);
    expect(small.status).toBe(200);
    expect(small.headers.etag).not.toBe(big.headers.etag);
  });

  it("keeps each status's count through loads, status changes, moves, deletes, rollbacks and TRUNCATE; status totals read them", async () => {
    const sql = e2e.database.pool;
    const total = async (list: string, token: string, status: string) =>
      (
        await request(e2e.server)
          .get(`/v1/me/community/team/${list}?status=${status}`)
          .set("Authorization", `Bearer ${token}`)
      ).headers["x-total-count"];
    const counted = async (list: string, team: string, words: string[]) => {
      const spec = list === "events" ? EVENTS_LIST : GUIDES_LIST;
      const conditions = words.map((word) => Object.entries(spec.filters.status).find(([w]) => w === word)?.[1]);
      const { rows } = await sql.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM ${list} t WHERE t.team_id = $1 AND (${conditions.join(" OR ")})`,
        [team],
      );
      return String(rows[0]?.n);
    };
    expect(await statusCountMismatches(sql)).toEqual([]);

    // every status of events, by SQL and by the loader; guides published and back to drafts
    const ids = (await expectedEventIds(BIG)).slice(0, 40);
    await sql.query("UPDATE events SET canceled_at = scheduled_at WHERE id = ANY($1)", [ids.slice(0, 10)]);
    await sql.query("UPDATE events SET live_at = scheduled_at WHERE id = ANY($1)", [ids.slice(5, 20)]);
    await sql.query("UPDATE events SET live_at = scheduled_at, completed_at = scheduled_at WHERE id = ANY($1)", [
      ids.slice(20, 25),
    ]);
    await loadFixture(e2e.database.prisma, {
      ...empty,
      events: [{ ...event(BIG, 30, instant(30)), canceled_at: instant(30) }],
      guides: [
        { ...guide(BIG, 10), published_at: instant(10) },
        { ...guide(BIG, 11), published_at: null },
      ],
    });
    await sql.query("UPDATE guides SET published_at = NULL WHERE team_id = $1 AND id LIKE '%5'", [BIG]);
    // moved to the other team while canceled, a live one deleted, and a rollback that changes nothing
    await sql.query("UPDATE events SET team_id = $2, slug = 'moved-canceled' WHERE id = $1", [ids[1], SMALL]);
    await sql.query("DELETE FROM events WHERE id = $1", [ids[12]]);
    const client = await sql.connect();
    try {
      await client.query("BEGIN");
      await client.query("UPDATE events SET canceled_at = scheduled_at WHERE team_id = $1", [BIG]);
      await client.query("ROLLBACK");
    } finally {
      client.release();
    }
    expect(await statusCountMismatches(sql)).toEqual([]);
    for (const [list, status] of [
      ["events", "canceled"],
      ["events", "live,completed"],
      ["events", "scheduled"],
      ["guides", "draft"],
      ["guides", "published"],
    ] as const) {
      for (const [team, token] of [
        [BIG, TOKEN.big],
        [SMALL, TOKEN.small],
      ] as const) {
        expect({ list, status, team, total: await total(list, token, status) }).toEqual({
          list,
          status,
          team,
          total: await counted(list, team, status.split(",")),
        });
      }
    }
    // a status alone is summed from the kept counts, with no count over the list
    statements.length = 0;
    const page = await new TeamListWalker(db, EVENTS_LIST).filteredPage(BIG, { status: ["canceled", "live"] }, 0, 5);
    expect(page.total).toBe(Number(await counted("events", BIG, ["canceled", "live"])));
    expect(statements).toHaveLength(1);
    expect(statements[0]).toContain("team_list_status_counts");
    expect(statements[0]).not.toContain("count(*)");

    // a TRUNCATE refilled and changed in the same transaction: the statuses are counted again
    const truncating = await sql.connect();
    try {
      await truncating.query("BEGIN");
      await truncating.query("CREATE TEMP TABLE kept_events ON COMMIT DROP AS SELECT * FROM events");
      await truncating.query("TRUNCATE events");
      await truncating.query("INSERT INTO events SELECT * FROM kept_events");
      await truncating.query(
        "UPDATE events SET canceled_at = NULL, live_at = NULL, completed_at = NULL WHERE id = $1",
        [ids[2]],
      );
      await truncating.query("COMMIT");
    } finally {
      truncating.release();
    }
    expect(await statusCountMismatches(sql)).toEqual([]);
    expect(await total("events", TOKEN.big, "canceled")).toBe(await counted("events", BIG, ["canceled"]));
    await statsMatchCounts();
  });

  it("changes the ETag of the teams whose items embed an account that changed", async () => {
    const before = await get(TOKEN.small);
    await loadFixture(e2e.database.prisma, {
      ...empty,
      accounts: [
        { id: "acc_1", slug: "acc-1", name: "Renamed", partner: true, profile_image_url: null, cover_image_url: null },
      ],
    });
    const after = await get(TOKEN.small);
    expect(after.body.guides[0].account.name).toBe("Renamed");
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect((await get(TOKEN.small).set("If-None-Match", before.headers.etag as string)).status).toBe(200);
  });
});
