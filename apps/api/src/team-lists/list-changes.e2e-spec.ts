import { seededRandom } from "@community/db/testing";
import { CLIMBERS, contractFixture, RUNNERS, TOKENS } from "@community/fixtures/testing";
import request from "supertest";
import { expectProblem } from "../testing/contract-assertions";
import { type Backend, type E2eApp, startE2eApp } from "../testing/e2e-app";
import { CHANGE_LOG_SWEEP_LOCK, ChangeLogSweeper } from "./change-log.sweeper";
import { SignedTokens } from "./signed-tokens";

/**
 * The changes since a token (contract 9.3) on both backends: a copy built from a walk plus the
 * changes since a token taken before it equals a fresh walk under writes of every kind (a
 * transaction that commits after the token included); moves, renames, coalescing, paging; the
 * token's binding, expiry (410) and forgery (400); the sweep.
 */
const SECRET = "list-changes-e2e-cursor-secret-0123456789";
const EVENTS = "/v1/me/community/team/events";
const GUIDES = "/v1/me/community/team/guides";
const MOVER_TOKEN = "tok-mover";

const fixture = contractFixture();
fixture.users.push({ id: "user_mover", name: "Mo", team_id: RUNNERS });
fixture.access_tokens.push({
  token: MOVER_TOKEN,
  user_id: "user_mover",
  client_id: "contract-client",
  expires_at: null,
  revoked: false,
});

type Item = { id: string } & Record<string, unknown>;
type Change = { op: "upsert"; id: string; item: Item } | { op: "delete"; id: string };

const backends: Backend[] = ["postgres", "embedded"];

describe.each(backends)("list changes on %s", (backend) => {
  let e2e: E2eApp;
  let serial = 0;

  beforeAll(async () => {
    e2e = await startE2eApp(backend, fixture, { env: { CURSOR_SECRET: SECRET } });
  }, 120_000);

  afterAll(async () => {
    await e2e?.close();
  });

  const get = (url: string, token: string = TOKENS.runner) =>
    request(e2e.server).get(url).set("Authorization", `Bearer ${token}`);
  const sql = (text: string, values: unknown[] = []) => e2e.database.pool.query(text, values);

  const insertEvent = (team: string, scheduledAt = "2026-03-05T18:30:00Z", account = "acc_jane") => {
    const id = `ev_sync_${backend}_${serial++}`;
    return sql(
      `INSERT INTO events (id, team_id, account_id, slug, name, duration_seconds, scheduled_at, offer_replay_purchase,
                           price_in_cents, currency)
       VALUES ($1::text, $2, $4, $1::text, $1::text, 60, $3, false, 0, 'USD')`,
      [id, team, scheduledAt, account],
    ).then(() => id);
  };

  async function token(path: string, bearer: string = TOKENS.runner): Promise<string> {
    const response = await get(`${path}/changes`, bearer);
    expect(response.status).toBe(200);
    return response.body.meta.sync.next;
  }

  /** Every change since `since`, page by page; the last token. */
  async function changesSince(path: string, since: string, bearer: string = TOKENS.runner, perPage = 100) {
    const changes: Change[] = [];
    let next = since;
    for (let page = 0; page < 100; page++) {
      const response = await get(`${path}/changes?since=${encodeURIComponent(next)}&per_page=${perPage}`, bearer);
      expect(response.status).toBe(200);
      changes.push(...response.body.changes);
      next = response.body.meta.sync.next;
      if (!response.body.meta.sync.has_more) return { changes, next };
    }
    throw new Error("the changes did not end");
  }

  /** A full cursor walk: the items by id. `between` runs after each page. */
  async function walk(path: string, bearer: string = TOKENS.runner, between: () => Promise<void> = async () => {}) {
    const items = new Map<string, Item>();
    let cursor = "";
    for (let page = 0; page < 100; page++) {
      const response = await get(`${path}?per_page=5&cursor=${encodeURIComponent(cursor)}`, bearer);
      for (const item of response.body.guides as Item[]) items.set(item.id, item);
      if (response.body.meta.pagination.next_cursor === null) return items;
      cursor = response.body.meta.pagination.next_cursor;
      await between();
    }
    throw new Error("the walk did not end");
  }

  const apply = (copy: Map<string, Item>, changes: Change[]) => {
    for (const change of changes) {
      if (change.op === "upsert") copy.set(change.id, change.item);
      else copy.delete(change.id);
    }
    return copy;
  };
  const sorted = (items: Map<string, Item>) => [...items.values()].sort((a, b) => (a.id < b.id ? -1 : 1));

  it("answers without since with no changes and a token, with the lists' headers", async () => {
    const response = await get(`${EVENTS}/changes`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ changes: [], meta: { sync: { next: expect.any(String), has_more: false } } });
    expect(response.headers["cache-control"]).toBe("private, no-cache");
    expect(response.headers.vary).toBe("Authorization, Accept-Encoding");
    expect(response.headers["content-type"]).toBe("application/json; charset=utf-8");
    const head = await request(e2e.server).head(`${EVENTS}/changes`).set("Authorization", `Bearer ${TOKENS.runner}`);
    expect(head.status).toBe(200);
  });

  it.each(["post", "put", "delete"] as const)("answers %s with 405", async (method) => {
    const response = await request(e2e.server)
      [method](`${GUIDES}/changes`)
      .set("Authorization", `Bearer ${TOKENS.runner}`);
    expectProblem(response, 405, "method-not-allowed");
    expect(response.headers.allow).toBe("GET, HEAD");
  });

  it("answers 401 without a token and 404 no-community-team for a user without a team", async () => {
    expectProblem(await request(e2e.server).get(`${EVENTS}/changes`), 401, "unauthorized");
    expectProblem(await get(`${EVENTS}/changes`, TOKENS.noTeam), 404, "no-community-team");
    expectProblem(await get(`${EVENTS}/changes?since=forged.token`, TOKENS.noTeam), 400, "invalid-query");
  });

  it("a copy from a walk and the changes since a token taken before it equals a fresh walk, for every team", async () => {
    const tokens = {
      runner: await token(EVENTS),
      climber: await token(EVENTS, TOKENS.climber),
    };
    const [firstRunner, secondRunner] = fixture.events.filter((e) => e.team_id === RUNNERS).map((e) => e.id);
    let round = 0;
    const writes = async () => {
      round++;
      if (round === 1) {
        await insertEvent(RUNNERS, "2026-03-09T00:00:00Z");
        await sql("UPDATE events SET name = name || ' (edited)' WHERE id = $1", [secondRunner]);
      } else if (round === 2) {
        await sql("UPDATE events SET team_id = $2 WHERE id = $1", [firstRunner, CLIMBERS]);
        await sql("UPDATE accounts SET name = 'Coach Carter' WHERE id = 'acc_coach'");
      } else if (round === 3) {
        const doomed = await insertEvent(CLIMBERS);
        await sql("DELETE FROM events WHERE id = $1", [doomed]);
        await sql("UPDATE events SET canceled_at = now() WHERE id = $1", [secondRunner]);
        await insertEvent(CLIMBERS, "2020-01-01T00:00:00Z");
      }
    };
    const runnerCopy = await walk(EVENTS, TOKENS.runner, writes);
    const climberCopy = await walk(EVENTS, TOKENS.climber);
    apply(runnerCopy, (await changesSince(EVENTS, tokens.runner, TOKENS.runner, 2)).changes);
    apply(climberCopy, (await changesSince(EVENTS, tokens.climber, TOKENS.climber, 2)).changes);
    expect(sorted(runnerCopy)).toEqual(sorted(await walk(EVENTS, TOKENS.runner)));
    expect(sorted(climberCopy)).toEqual(sorted(await walk(EVENTS, TOKENS.climber)));
    expect(round).toBeGreaterThanOrEqual(3);
  });

  it("keeps a copy equal to plain SQL at every quiet point under seeded random writes of every kind", async () => {
    // A failure names its seed and replays.
    const seed = 20_261_124;
    const random = seededRandom(seed);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
    const teams = [RUNNERS, CLIMBERS] as const;
    const bearer = { [RUNNERS]: TOKENS.runner, [CLIMBERS]: TOKENS.climber };
    const copies = new Map<string, Map<string, Item>>();
    const sinces = new Map<string, string>();
    for (const team of teams) {
      sinces.set(team, await token(EVENTS, bearer[team]));
      copies.set(team, await walk(EVENTS, bearer[team]));
    }
    const idsOf = async (team: string) =>
      (await sql("SELECT id FROM events WHERE team_id = $1", [team])).rows.map((r) => r.id as string).sort();
    let writes = 0;
    for (let round = 0; round < 12; round++) {
      for (let step = 0; step < 4; step++) {
        const team = pick(teams);
        const ids = await idsOf(team);
        const id = pick(ids);
        const kind = pick(["insert", "update", "delete", "move", "rename", "reschedule"] as const);
        if (kind === "insert" || id === undefined)
          await insertEvent(team, `2026-03-0${1 + Math.floor(random() * 9)}T18:30:00Z`);
        else if (kind === "update")
          await sql("UPDATE events SET name = $2 WHERE id = $1", [id, `name ${round}.${step}`]);
        else if (kind === "delete") await sql("DELETE FROM events WHERE id = $1", [id]);
        else if (kind === "move")
          await sql("UPDATE events SET team_id = $2 WHERE id = $1", [id, team === RUNNERS ? CLIMBERS : RUNNERS]);
        else if (kind === "rename")
          await sql("UPDATE accounts SET name = $1 WHERE id = 'acc_coach'", [`Coach ${round}.${step}`]);
        else
          await sql(
            "UPDATE events SET scheduled_at = scheduled_at + interval '1 hour', live_at = now() WHERE id = $1",
            [id],
          );
        writes++;
      }
      // A quiet point: each team's copy, brought up to date, equals its rows.
      for (const team of teams) {
        const { changes, next } = await changesSince(EVENTS, sinces.get(team) as string, bearer[team], 3);
        sinces.set(team, next);
        const copy = apply(copies.get(team) as Map<string, Item>, changes);
        expect([...copy.keys()].sort()).toEqual(await idsOf(team));
        expect(sorted(copy)).toEqual(sorted(await walk(EVENTS, bearer[team])));
      }
    }
    expect(writes).toBe(48);
  }, 120_000);

  // PostgreSQL only: PGlite runs one session, so a transaction left open blocks every other and
  // none can commit after a token taken meanwhile.
  if (backend === "postgres")
    it("returns the write of a transaction that began before the token and committed after it", async () => {
      const client = await e2e.database.pool.connect();
      try {
        await client.query("BEGIN");
        const id = `ev_late_${backend}`;
        await client.query(
          `INSERT INTO events (id, team_id, account_id, slug, name, duration_seconds, scheduled_at, offer_replay_purchase,
                             price_in_cents, currency)
         VALUES ($1::text, $2, 'acc_jane', $1::text, $1::text, 60, now(), false, 0, 'USD')`,
          [id, RUNNERS],
        );
        const since = await token(EVENTS);
        await client.query("COMMIT");
        const { changes } = await changesSince(EVENTS, since);
        expect(changes.map((c) => [c.op, c.id])).toContainEqual(["upsert", id]);
      } catch (error) {
        await client.query("ROLLBACK");
        throw error;
      } finally {
        client.release();
      }
    });

  it("shows a moved item as a delete to the team it left and an upsert to the team it joined", async () => {
    const id = await insertEvent(RUNNERS);
    const runnerSince = await token(EVENTS);
    const climberSince = await token(EVENTS, TOKENS.climber);
    await sql("UPDATE events SET team_id = $2 WHERE id = $1", [id, CLIMBERS]);
    expect((await changesSince(EVENTS, runnerSince)).changes).toEqual([{ op: "delete", id }]);
    const joined = (await changesSince(EVENTS, climberSince, TOKENS.climber)).changes;
    expect(joined.map((c) => [c.op, c.id])).toEqual([["upsert", id]]);
  });

  it("shows an account rename as an upsert of each of its items, and coalesces repeated changes", async () => {
    const since = await token(GUIDES);
    await sql("UPDATE accounts SET name = name || '!' WHERE id = 'acc_jane'");
    const janes = fixture.guides.filter((g) => g.team_id === RUNNERS && g.account_id === "acc_jane").map((g) => g.id);
    const first = janes[0] as string;
    await sql("UPDATE guides SET name = 'one' WHERE id = $1", [first]);
    await sql("UPDATE guides SET name = 'two' WHERE id = $1", [first]);
    const { changes } = await changesSince(GUIDES, since, TOKENS.runner, 1);
    expect(changes.map((c) => c.id).sort()).toEqual([...janes].sort());
    expect(changes.every((c) => c.op === "upsert")).toBe(true);
    // Once per item, in the place of its latest change, with its latest state.
    expect(changes.at(-1)).toMatchObject({ op: "upsert", id: first, item: { name: "two" } });
    const renamed = changes.find((c) => c.id !== first);
    expect(renamed).toMatchObject({ item: { account: { name: expect.stringMatching(/!$/) } } });
  });

  it("pages with has_more, and a token can be used again", async () => {
    const since = await token(EVENTS);
    const ids = [await insertEvent(RUNNERS), await insertEvent(RUNNERS), await insertEvent(RUNNERS)];
    const first = await get(`${EVENTS}/changes?since=${encodeURIComponent(since)}&per_page=2`);
    expect(first.body.changes).toHaveLength(2);
    expect(first.body.meta.sync.has_more).toBe(true);
    const again = await get(`${EVENTS}/changes?since=${encodeURIComponent(since)}&per_page=2`);
    expect(again.body.changes).toEqual(first.body.changes);
    const rest = await changesSince(EVENTS, first.body.meta.sync.next);
    expect([...first.body.changes, ...rest.changes].map((c: Change) => c.id)).toEqual(ids);
    expect((await changesSince(EVENTS, rest.next)).changes).toEqual([]);
  });

  describe("the since token", () => {
    const signer = new SignedTokens(Buffer.from(SECRET));

    it.each([
      ["altered", (t: string) => `${Buffer.from('{"l":"events"}').toString("base64url")}.${t.split(".")[1]}`],
      ["truncated", (t: string) => t.slice(0, -2)],
      ["forged", () => "eyJsIjoiZXZlbnRzIn0.AAAAAAAAAAAAAAAAAAAAAA"],
      [
        "signed with another secret",
        (t: string) => {
          const claims = signer.openSyncToken(t);
          if (claims === undefined) throw new Error("the service's token does not open with its secret");
          return new SignedTokens(Buffer.from("x".repeat(40))).syncToken(claims);
        },
      ],
    ])("answers 400 naming since when %s", async (_case, change) => {
      const response = await get(`${EVENTS}/changes?since=${encodeURIComponent(change(await token(EVENTS)))}`);
      expectProblem(response, 400, "invalid-query");
      expect(response.body.errors.map((e: { parameter: string }) => e.parameter)).toEqual(["since"]);
    });

    it("answers 410 sync-expired for a token of another team or list, and never shows their changes", async () => {
      const runners = await token(EVENTS);
      expectProblem(
        await get(`${EVENTS}/changes?since=${encodeURIComponent(runners)}`, TOKENS.climber),
        410,
        "sync-expired",
      );
      expectProblem(await get(`${GUIDES}/changes?since=${encodeURIComponent(runners)}`), 410, "sync-expired");
    });

    it("answers 410 sync-expired for a token older than the retention", async () => {
      const claims = signer.openSyncToken(await token(EVENTS));
      if (claims === undefined) throw new Error("the service's token does not open with its secret");
      const old = signer.syncToken({ ...claims, issuedAt: claims.issuedAt - e2e.config.sync.retentionSeconds - 60 });
      const response = await get(`${EVENTS}/changes?since=${encodeURIComponent(old)}`);
      expectProblem(response, 410, "sync-expired");
      expect(response.body.detail).toMatch(/retention/);
    });

    it("answers 410 sync-expired for a token from before the caller changed team", async () => {
      const since = await token(EVENTS, MOVER_TOKEN);
      await sql("UPDATE users SET team_id = $1 WHERE id = 'user_mover'", [CLIMBERS]);
      await sql("UPDATE users SET team_id = $1 WHERE id = 'user_mover'", [RUNNERS]);
      const response = await get(`${EVENTS}/changes?since=${encodeURIComponent(since)}`, MOVER_TOKEN);
      expectProblem(response, 410, "sync-expired");
      expect(response.body.detail).toMatch(/joined this team/);
      const fresh = await token(EVENTS, MOVER_TOKEN);
      expect((await get(`${EVENTS}/changes?since=${encodeURIComponent(fresh)}`, MOVER_TOKEN)).status).toBe(200);
    });
  });

  it("sweeps the log one replica at a time, and a token older than swept deletes is expired", async () => {
    const since = await token(EVENTS);
    const id = await insertEvent(RUNNERS);
    await sql("DELETE FROM events WHERE id = $1", [id]);
    const sweeper = e2e.app.get(ChangeLogSweeper);
    const future = new Date(Date.now() + (e2e.config.sync.retentionSeconds + 3600) * 1000);
    // The embedded pool has one connection: holding the lock there would hold the sweep's connection.
    if (backend === "postgres") {
      const holder = await e2e.database.pool.connect();
      try {
        await holder.query("SELECT pg_advisory_lock($1)", [CHANGE_LOG_SWEEP_LOCK]);
        expect(await sweeper.sweep(future)).toBeUndefined();
        await holder.query("SELECT pg_advisory_unlock($1)", [CHANGE_LOG_SWEEP_LOCK]);
      } finally {
        holder.release();
      }
    }
    expect(await sweeper.sweep(future)).toBeGreaterThanOrEqual(1);
    expectProblem(await get(`${EVENTS}/changes?since=${encodeURIComponent(since)}`), 410, "sync-expired");
    const metrics = await request(e2e.server).get("/metrics");
    if (backend === "postgres") expect(metrics.text).toMatch(/list_change_log_sweeps_total\{outcome="skipped"\} 1/);
    expect(metrics.text).toMatch(/list_change_log_sweeps_total\{outcome="swept"\} 1/);
    expect(metrics.text).toMatch(/list_change_log_swept_total [1-9]/);
  });

  // Last: it empties the guides of every team.
  it("answers 410 sync-expired for a token from before a reset (TRUNCATE) of the list", async () => {
    const since = await token(GUIDES);
    await sql("TRUNCATE guides");
    const response = await get(`${GUIDES}/changes?since=${encodeURIComponent(since)}`);
    expectProblem(response, 410, "sync-expired");
    expect(response.body.detail).toMatch(/reset/);
    const fresh = await token(GUIDES);
    expect((await get(`${GUIDES}/changes?since=${encodeURIComponent(fresh)}`)).body.changes).toEqual([]);
  });
});
