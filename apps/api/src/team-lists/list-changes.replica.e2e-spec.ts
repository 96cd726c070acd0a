import { SqlSession } from "@community/db/testing";
import { contractFixture, RUNNERS, TOKENS } from "@community/fixtures/testing";
import request from "supertest";
import { type E2eApp, startE2eAppOn } from "../testing/e2e-app";
import { pauseReplay, replayed, type StreamingPair, startStreamingPair } from "../testing/streaming-replica";

/**
 * The changes feed over a real read replica that lags (contract 9.3: "a read replica that has not
 * yet replayed up to a token is not used to answer it"): a PostgreSQL primary and a hot standby
 * streaming from it on loopback, the api with DATABASE_READ_URL on the standby, and the standby's
 * replay paused while the primary writes. A token issued after those writes must be answered with
 * every change committed since it, never from the standby's older state.
 */
const EVENTS = "/v1/me/community/team/events";

describe("list changes through a lagging streaming replica", () => {
  let pair: StreamingPair;
  let e2e: E2eApp;
  let primary: SqlSession;
  let standby: SqlSession;

  beforeAll(async () => {
    pair = await startStreamingPair();
    e2e = await startE2eAppOn(pair.primaryUrl, pair.replicaUrl, contractFixture());
    primary = await SqlSession.open(pair.primaryUrl);
    standby = await SqlSession.open(pair.replicaUrl);
  }, 180_000);

  afterAll(async () => {
    await standby?.query("SELECT pg_wal_replay_resume()").catch(() => undefined);
    await standby?.close();
    await primary?.close();
    await e2e?.close();
    await pair?.stop();
  });

  const get = (url: string) => request(e2e.server).get(url).set("Authorization", `Bearer ${TOKENS.runner}`);
  const insertEvent = (id: string) =>
    primary.query(
      `INSERT INTO events (id, team_id, account_id, slug, name, duration_seconds, scheduled_at, offer_replay_purchase,
                           price_in_cents, currency)
       VALUES ($1::text, $2, 'acc_jane', $1::text, $1::text, 60, '2026-03-05T18:30:00Z', false, 0, 'USD')`,
      [id, RUNNERS],
    );
  /** The ids of every change since `since`, page by page, and the last token. */
  async function changesUntilDone(since: string) {
    const ids: string[] = [];
    let next = since;
    for (let page = 0; page < 20; page++) {
      const response = await get(`${EVENTS}/changes?since=${encodeURIComponent(next)}`);
      expect(response.status).toBe(200);
      ids.push(...response.body.changes.map((c: { id: string }) => c.id));
      next = response.body.meta.sync.next;
      if (!response.body.meta.sync.has_more) return { ids, next };
    }
    throw new Error("the changes did not end");
  }
  const onStandby = async (id: string) =>
    (await standby.query("SELECT 1 FROM events WHERE id = $1", [id])).rowCount === 1;

  it("answers a token the replica has not replayed with every change since it (from the primary), never a gap", async () => {
    const before = (await get(`${EVENTS}/changes`)).body.meta.sync.next as string;
    await insertEvent("ev_replayed");
    await replayed(primary, standby);
    // The standby holds everything so far; from here on it lags as long as the test says.
    await pauseReplay(standby);
    await insertEvent("ev_unreplayed");
    const fresh = await get(`${EVENTS}/changes`);
    expect(fresh.status).toBe(200);
    const since = fresh.body.meta.sync.next as string;
    await insertEvent("ev_after_token");
    expect(await onStandby("ev_replayed")).toBe(true);
    expect(await onStandby("ev_unreplayed")).toBe(false);
    expect(await onStandby("ev_after_token")).toBe(false);

    // The fresh token is ahead of the standby: the primary answers, with the write after it.
    const response = await get(`${EVENTS}/changes?since=${encodeURIComponent(since)}`);
    expect(response.status).toBe(200);
    expect(response.body.changes.map((c: { op: string; id: string }) => [c.op, c.id])).toEqual([
      ["upsert", "ev_after_token"],
    ]);
    expect(response.body.meta.sync.has_more).toBe(false);
    // So is the next token: nothing new, and nothing from the standby's past.
    const next = await get(`${EVENTS}/changes?since=${encodeURIComponent(response.body.meta.sync.next)}`);
    expect(next.status).toBe(200);
    expect(next.body.changes).toEqual([]);
    // A token the standby has replayed may be answered from it, as of its replay: what it leaves
    // out comes with the tokens after it once it catches up, never lost.
    const older = await changesUntilDone(before);
    expect(older.ids).toContain("ev_replayed");
    await standby.query("SELECT pg_wal_replay_resume()");
    await replayed(primary, standby);
    expect(await onStandby("ev_after_token")).toBe(true);
    const rest = await changesUntilDone(older.next);
    expect([...new Set([...older.ids, ...rest.ids])].sort()).toEqual([
      "ev_after_token",
      "ev_replayed",
      "ev_unreplayed",
    ]);
  }, 120_000);
});
