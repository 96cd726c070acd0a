import { LockMonitor, SqlSession } from "@community/db/testing";
import type { FixtureEvent, FixtureFile, FixtureGuide } from "@community/domain";
import { fixtureEvent, fixtureGuide } from "@community/domain/testing";
import { type Backend, type E2eApp, startE2eApp } from "../testing/e2e-app";
import { countItems, expectedIds, expectedItems, getList, type ListName, listStats } from "./testing/list-truth";

/**
 * Writes that the change tracking once got wrong (versions, the range log, the counts), each
 * replayed step by step on real connections, and the pages, totals and tags the api then serves
 * held against the plain offset query. Overlapping transactions need a server: the embedded
 * database runs one transaction at a time, so it gets the cases that need no overlap.
 */

const BASE = Date.UTC(2026, 5, 1);
const at = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;
// Pages of 100 from the 11th on start past 1,000 items: they seek from cached page boundaries.
const PER_PAGE = 100;
const DEEP = 11;
const BIG = 1_300;

/** Item k of a ranked team sits at position k: three items per minute, newest first, ties in id order. */
function ranked(team: string, prefix: string, count: number): FixtureEvent[] {
  return Array.from({ length: count }, (_, k) =>
    fixtureEvent(`${prefix}_${String(k).padStart(5, "0")}`, {
      team_id: team,
      account_id: "acc_main",
      slug: `${prefix}-${k}`,
      name: `Event ${k}`,
      scheduled_at: at(BASE - Math.floor(k / 3) * 60_000),
    }),
  );
}

const TEAMS = {
  rename: "team_rename",
  backwards: "team_backwards",
  moved: "team_moved",
  movedTo: "team_moved_to",
  ties: "team_ties",
  renamedId: "team_old_id",
  held: "team_held",
} as const;
const tokenOf = (team: string) => `tok-${team}`;

function fixture(): FixtureFile {
  const guides: FixtureGuide[] = Array.from({ length: 5 }, (_, k) =>
    fixtureGuide(`gd_rn_${k}`, { team_id: TEAMS.renamedId, account_id: "acc_main", slug: `rn-${k}` }),
  );
  return {
    accounts: [
      { id: "acc_main", slug: "main", name: "Main", partner: false, profile_image_url: null, cover_image_url: null },
      { id: "acc_held", slug: "held", name: "Held", partner: false, profile_image_url: null, cover_image_url: null },
      {
        id: "acc_renamed",
        slug: "renamed",
        name: "Name before rename",
        partner: false,
        profile_image_url: null,
        cover_image_url: null,
      },
    ],
    teams: Object.values(TEAMS).map((id) => ({ id, name: id })),
    users: Object.values(TEAMS).map((team) => ({ id: `u_${team}`, name: team, team_id: team })),
    access_tokens: Object.values(TEAMS).map((team) => ({
      token: tokenOf(team),
      user_id: `u_${team}`,
      client_id: "c",
      expires_at: null,
      revoked: false,
    })),
    events: [
      ...ranked(TEAMS.rename, "ev_rename", 3),
      ...ranked(TEAMS.backwards, "ev_back", BIG),
      ...ranked(TEAMS.moved, "ev_moved", BIG),
      ...ranked(TEAMS.movedTo, "ev_to", 2),
      ...ranked(TEAMS.ties, "ev_ties", BIG),
      ...ranked(TEAMS.renamedId, "ev_rn", 5),
      ...ranked(TEAMS.held, "ev_held", 2),
    ],
    guides,
  };
}

const INSERT_EVENT = `INSERT INTO events (id, team_id, account_id, slug, name, duration_seconds, scheduled_at,
                                          offer_replay_purchase, price_in_cents, currency)
                      VALUES ($1::text, $2, $3, $1::text, $1::text, 60, $4, false, 100, 'USD')`;

describe.each<Backend>(["postgres", "embedded"])("change tracking regressions on %s", (backend) => {
  let e2e: E2eApp;
  let monitor: LockMonitor;
  const sessions: SqlSession[] = [];

  beforeAll(async () => {
    e2e = await startE2eApp(backend, fixture(), { env: { RATE_LIMIT_MAX: "0" } });
    if (backend === "postgres") monitor = await LockMonitor.open(e2e.url);
  }, 120_000);

  afterAll(async () => {
    for (const session of sessions) await session.close();
    await monitor?.close();
    await e2e?.close();
  });

  async function session(): Promise<SqlSession> {
    const opened = await SqlSession.open(e2e.url, monitor);
    sessions.push(opened);
    return opened;
  }

  const pool = () => e2e.database.pool;

  /** Page `page` of the team's list through the api equals the plain offset query, and so does the total. */
  async function expectPageAsQuery(list: ListName, team: string, page: number, perPage = PER_PAGE) {
    const served = await getList(e2e.server, list, tokenOf(team), page, perPage);
    expect(served.status).toBe(200);
    expect(served.items.map((item) => item.id)).toEqual(
      await expectedIds(pool(), list, team, perPage, (page - 1) * perPage),
    );
    expect(served.total).toBe(String(await countItems(pool(), list, team)));
    return served;
  }

  if (backend === "postgres") {
    it("moves the tag and the cached page when an account renamed in an open transaction gains an item meanwhile", async () => {
      const team = TEAMS.rename;
      const renamer = await session();
      const inserter = await session();
      const before = await getList(e2e.server, "events", tokenOf(team), 1, PER_PAGE);

      await renamer.query("BEGIN");
      expect(
        (await renamer.step("UPDATE accounts SET name = 'Name after rename' WHERE id = 'acc_renamed'")).state,
      ).toBe("settled");
      // The insert's foreign key check takes a key-share lock, which the rename does not block.
      const insert = await inserter.step(INSERT_EVENT, ["ev_rename_new", team, "acc_renamed", at(BASE + 60_000)]);
      if (insert.state === "settled") {
        await insert.promise;
        const during = await getList(e2e.server, "events", tokenOf(team), 1, PER_PAGE);
        expect(during.items).toEqual(await expectedItems(pool(), "events", team, PER_PAGE, 0));
        expect(during.items[0]?.account.name).toBe("Name before rename");
        await renamer.query("COMMIT");

        const revalidated = await getList(e2e.server, "events", tokenOf(team), 1, PER_PAGE, during.etag);
        expect(revalidated.status).toBe(200);
        expect(revalidated.etag).not.toBe(during.etag);
      } else {
        // The tracking held the insert's commit until the rename commits: only the end state is left to check.
        await renamer.query("COMMIT");
        await insert.promise;
      }
      const expected = await expectedItems(pool(), "events", team, PER_PAGE, 0);
      expect(expected[0]?.account.name).toBe("Name after rename");
      expect((await getList(e2e.server, "events", tokenOf(team), 1, PER_PAGE, before.etag)).status).toBe(200);
      expect((await getList(e2e.server, "events", tokenOf(team), 1, PER_PAGE)).items).toEqual(expected);
    });

    it("never turns an item writer's commit into a deadlock with a rename of its account that waits for its row", async () => {
      // Without change tracking the two commit one after the other: the insert's foreign key takes
      // a key-share lock, which the rename does not conflict with.
      const team = TEAMS.held;
      const writer = await session();
      const renamer = await session();
      const [held] = await expectedIds(pool(), "events", team, 1, 0);
      await writer.query("BEGIN");
      expect((await writer.step(INSERT_EVENT, ["ev_held_new", team, "acc_held", at(BASE)])).state).toBe("settled");
      expect((await writer.step("UPDATE events SET name = 'held' WHERE id = $1", [held])).state).toBe("settled");
      await renamer.query("BEGIN");
      const rename = await renamer.step("UPDATE accounts SET name = 'Held renamed' WHERE id = 'acc_held'");
      const renamerUpdate =
        rename.state === "settled"
          ? await renamer.step("UPDATE events SET name = 'renamer' WHERE id = $1", [held])
          : undefined;
      const commit = await writer.step("COMMIT");
      const outcomes = await Promise.allSettled([rename.promise, renamerUpdate?.promise, commit.promise]);
      const failed = outcomes.flatMap((o) => (o.status === "rejected" ? [String(o.reason)] : []));
      await renamer.query(failed.length === 0 ? "COMMIT" : "ROLLBACK");
      expect(failed).toEqual([]);
      expect(await getList(e2e.server, "events", tokenOf(team), 1, PER_PAGE).then((r) => r.items)).toEqual(
        await expectedItems(pool(), "events", team, PER_PAGE, 0),
      );
    });

    it("never lets a list's version go back when two writers overlap, and deep pages stay exact", async () => {
      const team = TEAMS.backwards;
      const a = await session();
      const b = await session();
      await expectPageAsQuery("events", team, DEEP);
      const [first] = await expectedIds(pool(), "events", team, 1, 0);
      const initial = await listStats(pool(), "events", team);

      await a.query("BEGIN");
      expect((await a.step("UPDATE events SET name = name WHERE id = $1", [first])).state).toBe("settled");
      await b.query("BEGIN");
      // The newest item: every position after it moves by one.
      const insert = await b.step(INSERT_EVENT, ["ev_back_new", team, "acc_main", at(BASE + 60_000)]);
      expect((await a.step("UPDATE events SET name = name WHERE id = $1", [first])).state).toBe("settled");
      await a.query("COMMIT");
      const afterA = await listStats(pool(), "events", team);
      expect(afterA?.version).toBeGreaterThan(initial?.version as bigint);
      // Read while the insert is still open: the boundaries now belong to A's version.
      await expectPageAsQuery("events", team, DEEP);

      await insert.promise;
      await b.query("COMMIT");
      for (const page of [DEEP - 1, DEEP, DEEP + 1, Math.ceil((BIG + 1) / PER_PAGE)]) {
        await expectPageAsQuery("events", team, page);
      }
      const afterB = await listStats(pool(), "events", team);
      expect(afterB?.version).toBeGreaterThan(afterA?.version as bigint);
      expect(afterB?.count).toBe(BIG + 1);
    });
  }

  it("logs an UPDATE that changes an item's id and team: deep pages of both teams stay exact", async () => {
    await expectPageAsQuery("events", TEAMS.moved, DEEP);
    const [first] = await expectedIds(pool(), "events", TEAMS.moved, 1, 0);
    await pool().query("UPDATE events SET id = id || '_moved', team_id = $2 WHERE id = $1", [first, TEAMS.movedTo]);

    for (const page of [DEEP - 1, DEEP, DEEP + 1]) await expectPageAsQuery("events", TEAMS.moved, page);
    const to = await expectPageAsQuery("events", TEAMS.movedTo, 1);
    expect(to.items.map((item) => item.id)).toContain(`${first}_moved`);
    for (const team of [TEAMS.moved, TEAMS.movedTo]) {
      expect((await listStats(pool(), "events", team))?.count).toBe(await countItems(pool(), "events", team));
    }
  });

  it("logs a change of id alone, which reorders items that share a sort key", async () => {
    const team = TEAMS.ties;
    await expectPageAsQuery("events", team, DEEP);
    // The last item of page 10 and the first of page 11 share their instant (three per minute).
    const offset = (DEEP - 1) * PER_PAGE;
    const [last, next] = await expectedIds(pool(), "events", team, 2, offset - 1);
    await pool().query("UPDATE events SET id = $2 WHERE id = $1", [last, `${next}z`]);

    for (const page of [DEEP - 1, DEEP, DEEP + 1]) await expectPageAsQuery("events", team, page);
    expect((await expectedIds(pool(), "events", team, 1, offset))[0]).toBe(`${next}z`);
  });

  it("refuses to rename a team's id with an error naming the team, and keeps its counts exact", async () => {
    const team = TEAMS.renamedId;
    const refusal = await pool()
      .query("UPDATE teams SET id = $2 WHERE id = $1", [team, `${team}_2`])
      .then(
        () => undefined,
        (error: Error) => error,
      );
    expect(refusal?.message).toContain(team);

    for (const list of ["events", "guides"] as const) {
      const count = await countItems(pool(), list, team);
      expect(count).toBe(5);
      expect((await listStats(pool(), list, team))?.count).toBe(count);
      const served = await getList(e2e.server, list, tokenOf(team), 1, 2);
      expect(served.total).toBe("5");
      expect(served.items.map((item) => item.id)).toEqual(await expectedIds(pool(), list, team, 2, 0));
    }
    // And for good: the next write counts from the right number.
    await pool().query(INSERT_EVENT, ["ev_rn_after", team, "acc_main", at(BASE)]);
    expect((await listStats(pool(), "events", team))?.count).toBe(6);
  });

  if (backend === "postgres") {
    // Last: it empties the guides of every team.
    it("never turns the commit of a TRUNCATE into a deadlock with an account rename committed meanwhile", async () => {
      // Without change tracking the rename commits at once and the TRUNCATE after it.
      const truncater = await session();
      const renamer = await session();
      await truncater.query("BEGIN");
      expect((await truncater.step(INSERT_EVENT, ["ev_trunc_new", TEAMS.held, "acc_held", at(BASE)])).state).toBe(
        "settled",
      );
      expect((await truncater.step("TRUNCATE guides")).state).toBe("settled");
      await renamer.query("BEGIN");
      const rename = await renamer.step("UPDATE accounts SET name = 'Held again' WHERE id = 'acc_held'");
      const renameCommit = rename.state === "settled" ? await renamer.step("COMMIT") : undefined;
      const truncateCommit = await truncater.step("COMMIT");
      const outcomes = await Promise.allSettled([rename.promise, renameCommit?.promise, truncateCommit.promise]);
      const failed = outcomes.flatMap((o) => (o.status === "rejected" ? [String(o.reason)] : []));
      if (renameCommit === undefined) await renamer.query(failed.length === 0 ? "COMMIT" : "ROLLBACK");
      expect(failed).toEqual([]);
      expect((await listStats(pool(), "guides", TEAMS.held))?.count ?? 0).toBe(0);
      expect(await getList(e2e.server, "events", tokenOf(TEAMS.held), 1, PER_PAGE).then((r) => r.items)).toEqual(
        await expectedItems(pool(), "events", TEAMS.held, PER_PAGE, 0),
      );
    });
  }
});
