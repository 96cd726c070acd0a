import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { SqlSession } from "@community/db/testing";
import { contractFixture, LARGE_TEAM_TOKEN, largeTeamFixture, RUNNERS, TOKENS } from "@community/fixtures/testing";
import request from "supertest";
import { type E2eApp, startE2eApp, startE2eAppOn } from "../testing/e2e-app";
import { dumpDatabase, type PrivateCluster, restoreDatabase, startPrivateCluster } from "../testing/private-cluster";
import { replayed, type StreamingPair, startStreamingPair } from "../testing/streaming-replica";

/**
 * Sync tokens, ETags, the page cache and the page boundaries when the database's history is
 * replaced under them (docs/database.md, "Positions"): a dump restored into a new cluster, a
 * restore to an earlier point under a running api, and an asynchronous failover that lost a
 * write. A position names a state of the list that lives in the data (version and stamp): a client
 * gets the changes that make its copy equal to a fresh walk, or 410, never a 500 or a silent gap,
 * and a 304 only for the same bytes.
 */
const SECRET = "positions-history-e2e-cursor-secret-0123";
const ENV = { CURSOR_SECRET: SECRET };
const EVENTS = "/v1/me/community/team/events";

type Item = { id: string } & Record<string, unknown>;

const get = (e2e: E2eApp, url: string, token: string = TOKENS.runner, ifNoneMatch?: string) => {
  const sent = request(e2e.server).get(url).set("Authorization", `Bearer ${token}`);
  return ifNoneMatch === undefined ? sent : sent.set("If-None-Match", ifNoneMatch);
};

/** A full cursor walk of the caller's events: id -> item. */
async function walk(e2e: E2eApp, token: string = TOKENS.runner): Promise<Map<string, Item>> {
  const copy = new Map<string, Item>();
  let cursor = "";
  for (let page = 0; page < 100; page++) {
    const response = await get(e2e, `${EVENTS}?cursor=${encodeURIComponent(cursor)}&per_page=100`, token);
    expect(response.status).toBe(200);
    for (const item of response.body.guides as Item[]) copy.set(item.id, item);
    cursor = response.body.meta.pagination.next_cursor;
    if (cursor === null) return copy;
  }
  throw new Error("the walk did not end");
}

/** Applies every change since `since` to `copy`: the status that ended it, the last token and the ids changed. */
async function sync(e2e: E2eApp, since: string, copy: Map<string, Item>, token: string = TOKENS.runner) {
  const ids: string[] = [];
  let next = since;
  for (let page = 0; page < 100; page++) {
    const response = await get(e2e, `${EVENTS}/changes?since=${encodeURIComponent(next)}`, token);
    if (response.status !== 200) return { status: response.status, body: response.body, next, ids };
    for (const change of response.body.changes as (
      | { op: "upsert"; id: string; item: Item }
      | { op: "delete"; id: string }
    )[]) {
      ids.push(change.id);
      if (change.op === "upsert") copy.set(change.id, change.item);
      else copy.delete(change.id);
    }
    next = response.body.meta.sync.next;
    if (!response.body.meta.sync.has_more) return { status: 200, body: response.body, next, ids };
  }
  throw new Error("the changes did not end");
}

const sorted = (copy: Map<string, Item>) => [...copy.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

const insertEvent = (db: SqlSession, id: string, team: string, scheduledAt: string) =>
  db.query(
    `INSERT INTO events (id, team_id, account_id, slug, name, duration_seconds, scheduled_at, offer_replay_purchase,
                         price_in_cents, currency)
     VALUES ($1::text, $2, 'acc_jane', $1::text, $1::text, 60, $3, false, 0, 'USD')`,
    [id, team, scheduledAt],
  );

describe("a sync token carried to a dump restored into a new cluster", () => {
  let source: E2eApp;
  let cluster: PrivateCluster;
  let target: E2eApp | undefined;
  let dir = "";

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "community-dump-"));
    source = await startE2eApp("postgres", contractFixture(), { env: ENV });
    cluster = await startPrivateCluster();
  }, 120_000);

  afterAll(async () => {
    await target?.close();
    await source?.close();
    await cluster?.stop();
    if (dir !== "") rmSync(dir, { recursive: true, force: true });
  });

  it("gets the changes that make the copy equal to a fresh walk there: no 500, no gap", async () => {
    const since = (await get(source, `${EVENTS}/changes`)).body.meta.sync.next as string;
    const copy = await walk(source);
    const old = await SqlSession.open(source.url);
    try {
      // After the token and in the dump.
      await insertEvent(old, "ev_before_dump", RUNNERS, "2026-06-01T10:00:00Z");
      const { rows } = await old.query<{ xid: string }>("SELECT pg_current_xact_id()::text AS xid");
      dumpDatabase(source.url, path.join(dir, "community.dump"));
      restoreDatabase(path.join(dir, "community.dump"), cluster.url);
      target = await startE2eAppOn(cluster.url, undefined, undefined, ENV);
      const moved = await SqlSession.open(cluster.url);
      try {
        // The new cluster's transaction counter starts far behind the old one's (the premise).
        const { rows: fresh } = await moved.query<{ xid: string }>("SELECT pg_current_xact_id()::text AS xid");
        expect(BigInt(fresh[0]?.xid ?? "0")).toBeLessThan(BigInt(rows[0]?.xid ?? "0"));
        await insertEvent(moved, "ev_new_cluster", RUNNERS, "2026-07-01T10:00:00Z");
        const [renamed, deleted] = [...copy.keys()];
        await moved.query("UPDATE events SET name = 'renamed in the new cluster' WHERE id = $1", [renamed]);
        await moved.query("DELETE FROM events WHERE id = $1", [deleted]);
      } finally {
        await moved.close();
      }
    } finally {
      await old.close();
    }

    const result = await sync(target, since, copy);
    expect(result.status).toBe(200);
    expect(result.ids).toEqual(expect.arrayContaining(["ev_before_dump", "ev_new_cluster"]));
    expect(sorted(copy)).toEqual(sorted(await walk(target)));
    // And the token it ends with goes on there.
    const quiet = await get(target, `${EVENTS}/changes?since=${encodeURIComponent(result.next)}`);
    expect(quiet.status).toBe(200);
    expect(quiet.body.changes).toEqual([]);
  }, 120_000);
});

describe("a restore to an earlier point under a running api", () => {
  const LARGE = "team_large";
  const PER_PAGE = 10;
  const FIRST = `${EVENTS}?page=1&per_page=${PER_PAGE}`;
  /** Pages past the boundary cache's threshold (offset 1,000), down to the end of the 1,234 events. */
  const DEEP = [101, 106, 111, 116, 121, 124].map((page) => ({
    page,
    url: `${EVENTS}?page=${page}&per_page=${PER_PAGE}`,
  }));
  let e2e: E2eApp;
  let db: SqlSession;
  let dir = "";

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "community-dump-"));
    e2e = await startE2eApp("postgres", largeTeamFixture(), { env: ENV });
    db = await SqlSession.open(e2e.url);
  }, 120_000);

  afterAll(async () => {
    await db?.close();
    await e2e?.close();
    if (dir !== "") rmSync(dir, { recursive: true, force: true });
  });

  const pageIds = async (page: number) =>
    (
      await db.query<{ id: string }>(
        "SELECT id FROM events WHERE team_id = $1 ORDER BY scheduled_at DESC, id LIMIT $2 OFFSET $3",
        [LARGE, PER_PAGE, (page - 1) * PER_PAGE],
      )
    ).rows.map((row) => row.id);
  const servedIds = (body: { guides: Item[] }) => body.guides.map((item) => item.id);
  const version = async () =>
    (
      await db.query<{ v: string }>(
        "SELECT version::text AS v FROM team_list_stats WHERE team_id = $1 AND list = 'events'",
        [LARGE],
      )
    ).rows[0]?.v;
  /** Five commits, each one insert. */
  const write = async (ids: string[], at: (i: number) => string) => {
    for (const [i, id] of ids.entries()) await insertEvent(db, id, LARGE, at(i));
  };

  it("serves page 1 and deep pages as SQL has them, a 200 for the old tag (also after a restart) and 410 for the old token", async () => {
    // Warm the page cache, the boundaries and a token.
    for (let round = 0; round < 2; round++) {
      await get(e2e, FIRST, LARGE_TEAM_TOKEN);
      for (const { url } of DEEP) await get(e2e, url, LARGE_TEAM_TOKEN);
    }
    const before = (await get(e2e, `${EVENTS}/changes`, LARGE_TEAM_TOKEN)).body.meta.sync.next as string;
    dumpDatabase(e2e.url, path.join(dir, "large.dump"));

    // X: five events at the top, each its own commit; the api serves them, tags them, syncs them.
    const lost = ["ev_x_1", "ev_x_2", "ev_x_3", "ev_x_4", "ev_x_5"];
    await write(lost, (i) => `2027-01-0${i + 1}T10:00:00Z`);
    const versionWithX = await version();
    const withX = await get(e2e, FIRST, LARGE_TEAM_TOKEN);
    expect(servedIds(withX.body).slice(0, 5)).toEqual([...lost].reverse());
    for (let round = 0; round < 2; round++) for (const { url } of DEEP) await get(e2e, url, LARGE_TEAM_TOKEN);
    const sawX = await sync(e2e, before, new Map(), LARGE_TEAM_TOKEN);
    expect(sawX.ids.sort()).toEqual(lost);

    // The restore, under the running api; then Y: five commits again (three at the top, two at the
    // bottom), so the list's version comes back to X's with other content.
    restoreDatabase(path.join(dir, "large.dump"), e2e.url);
    const top = ["ev_y_1", "ev_y_2", "ev_y_3"];
    await write([...top, "ev_y_4", "ev_y_5"], (i) =>
      i < 3 ? `2027-02-0${i + 1}T10:00:00Z` : `2020-01-0${i}T10:00:00Z`,
    );
    expect(await version()).toBe(versionWithX);

    // Every answer is observed first and compared at the end, so that a failure shows them all.
    const truth = await pageIds(1);
    expect(truth.slice(0, 3)).toEqual([...top].reverse());
    const first = await get(e2e, FIRST, LARGE_TEAM_TOKEN);
    const revalidated = await get(e2e, FIRST, LARGE_TEAM_TOKEN, withX.headers.etag);
    const old = await get(e2e, `${EVENTS}/changes?since=${encodeURIComponent(sawX.next)}`, LARGE_TEAM_TOKEN);
    const deep: { page: number; ids: string[] }[] = [];
    const deepTruth: { page: number; ids: string[] }[] = [];
    for (let round = 0; round < 2; round++) {
      for (const { page, url } of DEEP) {
        deep.push({ page, ids: servedIds((await get(e2e, url, LARGE_TEAM_TOKEN)).body) });
        deepTruth.push({ page, ids: await pageIds(page) });
      }
    }
    // A fresh process (empty caches) does not take the old tag for the new bytes either.
    const restarted = await startE2eAppOn(e2e.url, undefined, undefined, ENV);
    let again: request.Response;
    let oldAgain: request.Response;
    try {
      again = await get(restarted, FIRST, LARGE_TEAM_TOKEN, withX.headers.etag);
      oldAgain = await get(restarted, `${EVENTS}/changes?since=${encodeURIComponent(sawX.next)}`, LARGE_TEAM_TOKEN);
    } finally {
      await restarted.close();
    }

    expect({
      first: [first.status, servedIds(first.body)],
      revalidated: [revalidated.status, revalidated.status === 200 ? servedIds(revalidated.body) : []],
      sameTag: revalidated.headers.etag === withX.headers.etag,
      oldToken: [old.status, old.body.type],
      deep,
      afterRestart: [again.status, again.status === 200 ? servedIds(again.body) : []],
      oldTokenAfterRestart: oldAgain.status,
    }).toEqual({
      first: [200, truth],
      revalidated: [200, truth],
      sameTag: false,
      oldToken: [410, expect.stringMatching(/sync-expired$/)],
      deep: deepTruth,
      afterRestart: [200, truth],
      oldTokenAfterRestart: 410,
    });
  }, 180_000);
});

describe("an asynchronous failover that lost a write", () => {
  let pair: StreamingPair;
  let primary: SqlSession;
  let standby: SqlSession;
  let before: E2eApp | undefined;
  let after: E2eApp | undefined;

  beforeAll(async () => {
    pair = await startStreamingPair();
    before = await startE2eAppOn(pair.primaryUrl, undefined, contractFixture(), ENV);
    primary = await SqlSession.open(pair.primaryUrl);
    standby = await SqlSession.open(pair.replicaUrl);
  }, 180_000);

  afterAll(async () => {
    await after?.close();
    await before?.close();
    await standby?.close();
    await primary?.close();
    await pair?.stop();
  });

  it("answers 410 to a token that saw the lost write, and a token from before it with no gap", async () => {
    if (before === undefined) throw new Error("the api did not start");
    const since = (await get(before, `${EVENTS}/changes`)).body.meta.sync.next as string;
    const copy = await walk(before);
    await replayed(primary, standby);
    // From here on the standby receives nothing: what the primary commits now is lost at promotion.
    await standby.query("ALTER SYSTEM SET primary_conninfo = ''");
    await standby.query("SELECT pg_reload_conf()");
    for (let i = 0; (await standby.query("SELECT 1 FROM pg_stat_wal_receiver")).rowCount !== 0; i++) {
      if (i > 600) throw new Error("the standby's WAL receiver did not stop in 30 s");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await insertEvent(primary, "ev_lost", RUNNERS, "2026-08-01T10:00:00Z");
    const sawLost = await sync(before, since, new Map(copy));
    expect(sawLost.ids).toEqual(["ev_lost"]);

    await standby.query("SELECT pg_promote(true, 60)");
    expect((await standby.query("SELECT 1 FROM events WHERE id = 'ev_lost'")).rowCount).toBe(0);
    await before.close();
    before = undefined;
    after = await startE2eAppOn(pair.replicaUrl, undefined, undefined, ENV);
    // The new primary hands out the lost transaction's ids and versions again, for other writes.
    await insertEvent(standby, "ev_after_failover", RUNNERS, "2026-08-02T10:00:00Z");

    const refused = await get(after, `${EVENTS}/changes?since=${encodeURIComponent(sawLost.next)}`);
    expect(refused.status).toBe(410);
    expect(refused.body.type).toMatch(/sync-expired$/);
    const result = await sync(after, since, copy);
    expect(result.status).toBe(200);
    expect(result.ids).toEqual(["ev_after_failover"]);
    expect(sorted(copy)).toEqual(sorted(await walk(after)));
  }, 180_000);
});
