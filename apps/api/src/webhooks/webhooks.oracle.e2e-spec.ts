import { randomInt } from "node:crypto";
import { seededRandom } from "@community/db/testing";
import { CLIMBERS, contractFixture, RUNNERS, TOKENS } from "@community/fixtures/testing";
import type { PoolClient } from "pg";
import request from "supertest";
import { type E2eApp, listenOnLoopback, startE2eApp, startE2eAppOn } from "../testing/e2e-app";
import { receiverForSuite } from "./testing/receiver";
import { WebhookDeliveryWorker } from "./webhook-delivery.worker";

/**
 * Nothing lost, against plain SQL: seeded writers (inserts, renames, deletes, rollbacks, several
 * lists and teams in one transaction, overlapping) run while a receiver keeps a copy of the
 * runners' events and guides the way a subscriber should: each notice makes it read the changes
 * feed from its last token, and it never polls. Once the writers stop and the notices are sent,
 * the copy equals the lists as plain SQL reads them, field for field (id and name). Two replicas
 * run the delivery worker meanwhile: no notice is sent twice (every attempt is answered 2xx, so
 * none is retried). ORACLE_SEED replays a schedule.
 */
const WEBHOOKS = "/v1/me/community/team/webhooks";
const seed = process.env.ORACLE_SEED === undefined ? randomInt(2 ** 31) : Number(process.env.ORACLE_SEED);
const WRITE_MS = 6_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Copy = Map<string, string>;

/** A copy of one list kept through the changes feed, read again on each notice. */
class NoticeDrivenCopy {
  readonly items: Copy = new Map();
  reads = 0;
  private since = "";
  private reading: Promise<void> = Promise.resolve();

  constructor(
    private readonly base: string,
    private readonly list: "events" | "guides",
  ) {}

  async start(initial: Copy): Promise<void> {
    const response = await request(this.base)
      .get(`/v1/me/community/team/${this.list}/changes`)
      .set("Authorization", `Bearer ${TOKENS.runner}`);
    this.since = response.body.meta.sync.next;
    for (const [id, name] of initial) this.items.set(id, name);
  }

  /** Reads the feed after the last read (notices that come meanwhile chain after it). */
  told(): Promise<void> {
    this.reading = this.reading.then(() => this.readAll());
    return this.reading;
  }

  private async readAll(): Promise<void> {
    for (;;) {
      this.reads++;
      const response = await request(this.base)
        .get(`/v1/me/community/team/${this.list}/changes`)
        .query({ since: this.since })
        .set("Authorization", `Bearer ${TOKENS.runner}`);
      if (response.status !== 200) throw new Error(`changes answered ${response.status}: ${response.text}`);
      for (const change of response.body.changes as { op: string; id: string; item?: { name: string } }[]) {
        if (change.op === "delete") this.items.delete(change.id);
        else this.items.set(change.id, change.item?.name ?? "");
      }
      this.since = response.body.meta.sync.next;
      if (!response.body.meta.sync.has_more) return;
    }
  }
}

describe("webhooks against plain SQL under overlapping writers", () => {
  const receiver = receiverForSuite();
  let e2e: E2eApp;
  let second: E2eApp;
  let base: string;

  beforeAll(async () => {
    const env = { RATE_LIMIT_MAX: "0", WEBHOOK_ALLOWED_HOSTS: "127.0.0.1", WEBHOOK_SWEEP_INTERVAL_SECONDS: "1" };
    e2e = await startE2eApp("postgres", contractFixture(), { env });
    second = await startE2eAppOn(e2e.url, undefined, undefined, env);
    base = (await listenOnLoopback(e2e)).url;
  }, 120_000);

  afterAll(async () => {
    await second?.close();
    await e2e?.close();
  });

  async function listed(list: "events" | "guides"): Promise<Copy> {
    const { rows } = await e2e.database.pool.query<{ id: string; name: string }>(
      `SELECT id, name FROM ${list} WHERE team_id = $1`,
      [RUNNERS],
    );
    return new Map(rows.map((row) => [row.id, row.name]));
  }

  it("leaves a copy kept by notices alone equal to the lists", async () => {
    console.log(`webhooks oracle seed ${seed}: ORACLE_SEED=${seed} replays it`);
    const random = seededRandom(seed);
    const copies = { events: new NoticeDrivenCopy(base, "events"), guides: new NoticeDrivenCopy(base, "guides") };
    for (const list of ["events", "guides"] as const) await copies[list].start(await listed(list));

    const created = await request(base)
      .post(WEBHOOKS)
      .set("Authorization", `Bearer ${TOKENS.runner}`)
      .send({ url: receiver.url(), lists: ["events", "guides"] });
    expect(created.status).toBe(201);
    // The receiver reads the feed after answering, or (one notice in two, drawn from the seed)
    // before it answers, while the notice is in flight: a commit then must still be told.
    const pending: Promise<void>[] = [];
    const listOf = (notice: { body: string }) => {
      const { type, data } = JSON.parse(notice.body) as { type: string; data: { list: "events" | "guides" } };
      return type === "webhook.ping" ? undefined : data.list;
    };
    const readFirst = new Set<unknown>();
    receiver.beforeAnswer = async (notice) => {
      const list = listOf(notice);
      if (list === undefined || random() < 0.5) return;
      readFirst.add(notice);
      const read = copies[list].told();
      pending.push(read);
      await read;
    };
    let seen = receiver.received.length;
    const afterAnswer = () => {
      for (const notice of receiver.received.slice(seen)) {
        const list = listOf(notice);
        if (list !== undefined && !readFirst.has(notice)) pending.push(copies[list].told());
      }
      seen = receiver.received.length;
    };
    const watch = setInterval(afterAnswer, 10);

    let serial = 0;
    const teams = [RUNNERS, RUNNERS, CLIMBERS];
    const writer = async (client: PoolClient, id: number) => {
      const deadline = Date.now() + WRITE_MS;
      while (Date.now() < deadline) {
        const team = teams[Math.floor(random() * teams.length)] as string;
        await client.query("BEGIN");
        const statements = 1 + Math.floor(random() * 3);
        for (let i = 0; i < statements; i++) {
          const pick = random();
          const key = `w${id}_${serial++}`;
          if (pick < 0.35) {
            await client.query(
              `INSERT INTO events (id, team_id, account_id, slug, name, duration_seconds, scheduled_at,
                 offer_replay_purchase, price_in_cents, currency)
               VALUES ($1::text, $2, 'acc_jane', $1::text, $1::text, 60, now(), false, 0, 'USD')`,
              [`ev_${key}`, team],
            );
          } else if (pick < 0.55) {
            await client.query(
              `INSERT INTO guides (id, team_id, account_id, slug, name, price_in_cents, currency)
               VALUES ($1::text, $2, 'acc_jane', $1::text, $1::text, 0, 'USD')`,
              [`gd_${key}`, team],
            );
          } else if (pick < 0.8) {
            const list = random() < 0.5 ? "events" : "guides";
            await client.query(
              `UPDATE ${list} SET name = $1 WHERE id = (SELECT id FROM ${list} WHERE team_id = $2 ORDER BY random() LIMIT 1)`,
              [`renamed ${key}`, team],
            );
          } else {
            const list = random() < 0.5 ? "events" : "guides";
            await client.query(
              `DELETE FROM ${list} WHERE id = (SELECT id FROM ${list} WHERE team_id = $1 AND (id LIKE 'ev_w%' OR id LIKE 'gd_w%') ORDER BY random() LIMIT 1)`,
              [team],
            );
          }
        }
        await client.query(random() < 0.15 ? "ROLLBACK" : "COMMIT");
        await sleep(Math.floor(random() * 40));
      }
    };
    const clients = await Promise.all([0, 1, 2].map(() => e2e.database.pool.connect()));
    try {
      await Promise.all(clients.map((client, i) => writer(client, i)));
    } finally {
      for (const client of clients) client.release();
    }

    // Quiet: no notice owed, and every read it caused done.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const { rows } = await e2e.database.pool.query<{ due: number }>(
        "SELECT count(*)::int AS due FROM webhook_deliveries WHERE state = 'pending'",
      );
      if (rows[0]?.due === 0) break;
      if (Date.now() > deadline) throw new Error("notices still pending 30 s after the writers stopped");
      await sleep(100);
    }
    await sleep(300);
    clearInterval(watch);
    afterAnswer();
    await Promise.all(pending);

    const log = await e2e.database.pool.query<{ state: string; n: number }>(
      "SELECT state, count(*)::int AS n FROM webhook_deliveries WHERE type <> 'webhook.ping' GROUP BY state",
    );
    console.log(
      `webhooks oracle seed ${seed}: ${JSON.stringify(log.rows)}; feed reads: events ${copies.events.reads}, guides ${copies.guides.reads}`,
    );
    expect(log.rows.every((row) => row.state === "delivered")).toBe(true);
    const ids = receiver.received.map((notice) => String(notice.headers["webhook-id"]));
    expect(ids.length - new Set(ids).size).toBe(0);
    // Both replicas ran a worker (the second started it at a sweep: it made no subscription).
    expect([e2e, second].map((app) => app.app.get(WebhookDeliveryWorker).running)).toEqual([true, true]);
    for (const list of ["events", "guides"] as const) {
      expect({ list, copy: [...copies[list].items].sort() }).toEqual({ list, copy: [...(await listed(list))].sort() });
    }
  }, 120_000);
});
