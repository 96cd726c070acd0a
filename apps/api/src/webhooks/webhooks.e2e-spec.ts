import { hashToken } from "@community/db";
import { CLIENT_ID, CLIMBERS, contractFixture, RUNNERS, TOKENS, until } from "@community/fixtures/testing";
import { Webhook } from "standardwebhooks";
import request from "supertest";
import { expectProblem } from "../testing/contract-assertions";
import { startE2eApp } from "../testing/e2e-app";
import { insertEventSql, insertGuideSql, psql } from "../testing/psql";
import { appForSuite, listeningContractAppForSuite } from "../testing/suite-app";
import { TestReceiver } from "./testing/receiver";
import { WebhookDeliveryWorker } from "./webhook-delivery.worker";

/**
 * Webhooks (contract 10.2) on PostgreSQL, with receivers on loopback (127.0.0.1 is the allowed
 * host): creation proves control of the URL with a signed ping; a commit made through psql (not
 * the api) is followed by a thin, signed notice; bursts coalesce; 503 then 200 resends the same
 * webhook-id; 410 and the end of the schedule disable; a rotated secret signs beside the new one;
 * the log and redelivery; owners see only their own; a user who left the team is told nothing.
 */
const WEBHOOKS = "/v1/me/community/team/webhooks";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let serial = 0;

/** Commits `count` events to `team`, each in a transaction of its own, through psql. */
async function commitEvents(url: string, team: string, count = 1): Promise<void> {
  const statements: string[] = [];
  for (let i = 0; i < count; i++) statements.push(insertEventSql(`ev_hook_${process.pid}_${serial++}`, team));
  await psql(url, statements.join("\n"));
}

async function commitGuide(url: string, team: string): Promise<void> {
  await psql(url, insertGuideSql(`gd_hook_${process.pid}_${serial++}`, team));
}

interface Created {
  id: string;
  secret: string;
  status: string;
  url: string;
  lists: string[];
}

describe("webhooks on postgres", () => {
  const e2e = listeningContractAppForSuite(
    {
      RATE_LIMIT_MAX: "0",
      WEBHOOK_ALLOWED_HOSTS: "127.0.0.1",
      WEBHOOK_RETRY_SCHEDULE: "1s,1s",
      WEBHOOK_TIMEOUT_MS: "2000",
      WEBHOOK_SWEEP_INTERVAL_SECONDS: "1",
      WEBHOOK_STALE_LOCK_SECONDS: "5",
    },
    120_000,
  );
  let receiver: TestReceiver;

  const auth = (token: string = TOKENS.runner) => ({ Authorization: `Bearer ${token}` });

  async function subscribe(
    lists: string[] = ["events"],
    token: string = TOKENS.runner,
    path = "/hook",
  ): Promise<Created> {
    const response = await request(e2e.origin)
      .post(WEBHOOKS)
      .set(auth(token))
      .send({ url: receiver.url(path), lists, description: "test" });
    expect(response.status).toBe(201);
    return response.body as Created;
  }

  /** Notices made due so far (pings aside): made in the committing transaction, so known at once. */
  async function owed(where = "true", values: unknown[] = []): Promise<number> {
    const { rows } = await e2e.database.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM webhook_deliveries WHERE type <> 'webhook.ping' AND ${where}`,
      values,
    );
    return rows[0]?.n ?? 0;
  }

  function verified(secret: string, notice: { headers: Record<string, unknown>; body: string }): unknown {
    return new Webhook(secret).verify(notice.body, notice.headers as Record<string, string>);
  }

  beforeEach(async () => {
    receiver = await TestReceiver.start();
  });

  afterEach(async () => {
    await e2e.database.pool.query("DELETE FROM webhook_subscriptions");
    await e2e.database.pool.query("UPDATE users SET team_id = $1 WHERE id = 'user_runner'", [RUNNERS]);
    await receiver.close();
  });

  it("creates a subscription after a signed ping the URL answers 2xx, and shows its secret once", async () => {
    const created = await subscribe(["events", "guides"]);
    expect(created).toMatchObject({ status: "active", url: receiver.url(), lists: ["events", "guides"] });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(created.secret.slice(6), "base64")).toHaveLength(32);

    const [ping] = receiver.received;
    expect(receiver.received).toHaveLength(1);
    expect(ping?.headers["content-type"]).toBe("application/json");
    expect(verified(created.secret, ping as never)).toMatchObject({ type: "webhook.ping" });

    const listed = await request(e2e.origin).get(WEBHOOKS).set(auth());
    expect(listed.status).toBe(200);
    expect(listed.body.webhooks).toEqual([expect.objectContaining({ id: created.id, status: "active" })]);
    expect(JSON.stringify(listed.body)).not.toContain(created.secret.slice(6));
    const one = await request(e2e.origin).get(`${WEBHOOKS}/${created.id}`).set(auth());
    expect(one.body).not.toHaveProperty("secret");

    const log = await request(e2e.origin).get(`${WEBHOOKS}/${created.id}/deliveries`).set(auth());
    expect(log.body.deliveries).toEqual([
      expect.objectContaining({
        id: ping?.headers["webhook-id"],
        type: "webhook.ping",
        state: "delivered",
        attempts: 1,
        last_status_code: 204,
      }),
    ]);
    expect(log.body.meta.pagination).toEqual({ current_page: 1, per_page: 100, total_pages: 1 });
    expect(log.headers["x-total-count"]).toBe("1");
    expect(log.headers.link).toBe(
      `<${WEBHOOKS}/${created.id}/deliveries?page=1&per_page=100>; rel="first", <${WEBHOOKS}/${created.id}/deliveries?page=1&per_page=100>; rel="last"`,
    );
    const past = await request(e2e.origin).get(`${WEBHOOKS}/${created.id}/deliveries?page=2147483647`).set(auth());
    expect([past.status, past.body.deliveries, past.headers["x-total-count"]]).toEqual([200, [], "1"]);
    expectProblem(
      await request(e2e.origin).get(`${WEBHOOKS}/${created.id}/deliveries?per_page=0`).set(auth()),
      400,
      "invalid-query",
    );
  });

  it("stores nothing when the ping is not answered 2xx (422 naming url)", async () => {
    receiver.answers.push({ status: 500 });
    const response = await request(e2e.origin)
      .post(WEBHOOKS)
      .set(auth())
      .send({ url: receiver.url(), lists: ["events"] });
    expectProblem(response, 422, "webhook-unreachable");
    expect(response.body.errors).toEqual([{ parameter: "url", message: expect.stringContaining("500") }]);
    receiver.answers.push({ status: 302, headers: { Location: receiver.url("/elsewhere") } });
    const redirected = await request(e2e.origin)
      .post(WEBHOOKS)
      .set(auth())
      .send({ url: receiver.url(), lists: ["events"] });
    expectProblem(redirected, 422, "webhook-unreachable");
    expect(receiver.received.map((notice) => notice.body).length).toBe(2);
    expect((await request(e2e.origin).get(WEBHOOKS).set(auth())).body.webhooks).toEqual([]);
  });

  it("refuses bodies and URLs it must not send to, naming each bad field (400)", async () => {
    const other = "127.0.0.2";
    const refused = [
      `http://localhost:${receiver.port}/hook`,
      `http://${other}:${receiver.port}/hook`,
      `http://2130706434:${receiver.port}/hook`,
      `http://0x7f000002:${receiver.port}/hook`,
      `http://[::ffff:127.0.0.2]:${receiver.port}/hook`,
      `http://[::1]:${receiver.port}/hook`,
      `https://user:secret@127.0.0.1:${receiver.port}/hook`,
      "http://example.com/hook",
      "ftp://127.0.0.1/hook",
      "not a url",
    ];
    for (const url of refused) {
      const response = await request(e2e.origin)
        .post(WEBHOOKS)
        .set(auth())
        .send({ url, lists: ["events"] });
      expectProblem(response, 400, "invalid-body");
      expect(response.body.errors.map((e: { parameter: string }) => e.parameter)).toEqual(["url"]);
    }
    const everything = await request(e2e.origin).post(WEBHOOKS).set(auth()).send({ lists: [], description: 5 });
    expectProblem(everything, 400, "invalid-body");
    expect(everything.body.errors.map((e: { parameter: string }) => e.parameter).sort()).toEqual([
      "description",
      "lists",
      "url",
    ]);
    const unknownList = await request(e2e.origin)
      .post(WEBHOOKS)
      .set(auth())
      .send({ url: receiver.url(), lists: ["items"] });
    expect(unknownList.body.errors).toEqual([{ parameter: "lists", message: expect.stringContaining("events") }]);
    const malformed = await request(e2e.origin)
      .post(WEBHOOKS)
      .set(auth())
      .set("Content-Type", "application/json")
      .send('{"url":');
    expectProblem(malformed, 400, "invalid-body");
    const form = await request(e2e.origin).post(WEBHOOKS).set(auth()).type("form").send({ url: receiver.url() });
    expectProblem(form, 415, "unsupported-media-type");
    expect(receiver.received).toEqual([]);
  });

  it("answers 401 before it reads a body, and 405 with Allow on other methods", async () => {
    const response = await request(e2e.origin).post(WEBHOOKS).set("Content-Type", "application/json").send("{");
    expectProblem(response, 401, "unauthorized");
    const put = await request(e2e.origin).put(WEBHOOKS).set(auth());
    expectProblem(put, 405, "method-not-allowed");
    expect(put.headers.allow).toBe("GET, HEAD, POST");
    // Each path its own methods, whatever its id is spelled like.
    for (const [path, allowed] of [
      ["/wh_0000000000000000000000", "GET, HEAD, DELETE"],
      ["/rotate-secret", "GET, HEAD, DELETE"],
      ["/wh_0000000000000000000000/deliveries", "GET, HEAD"],
      ["/wh_0000000000000000000000/rotate-secret", "POST"],
      ["/wh_0000000000000000000000/deliveries/msg_0/redeliver", "POST"],
    ]) {
      const response = await request(e2e.origin).put(`${WEBHOOKS}${path}`).set(auth());
      expectProblem(response, 405, "method-not-allowed");
      expect([path, response.headers.allow]).toEqual([path, allowed]);
    }
  });

  it("tells a commit through psql within 5 s, signed, and says nothing of the change itself", async () => {
    const created = await subscribe(["events"]);
    const started = Date.now();
    await commitEvents(e2e.url, RUNNERS);
    const [notice] = await receiver.awaitType("events.changed", 1, "the notice arrives");
    expect((notice?.at ?? 0) - started).toBeLessThan(5_000);
    expect(verified(created.secret, notice as never)).toEqual({
      type: "events.changed",
      timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/),
      data: { list: "events", changes: "/v1/me/community/team/events/changes" },
    });
    expect(notice?.body).not.toContain("ev_hook_");
    // Guides are not subscribed: a guide's commit makes no notice due.
    await commitGuide(e2e.url, RUNNERS);
    expect(await owed("list = 'guides'")).toBe(0);
  });

  it("coalesces a burst of 1,000 commits into a handful of notices: one a second at most", async () => {
    await subscribe(["events"]);
    const started = Date.now();
    await commitEvents(e2e.url, RUNNERS, 1_000);
    const burstSeconds = Math.ceil((Date.now() - started) / 1_000);
    await receiver.awaitType("events.changed", 1, "a notice arrives");
    await sleep(2_000);
    const notices = receiver.ofType("events.changed");
    expect(notices.length).toBeGreaterThanOrEqual(1);
    // A notice is sent a second after the commit that made it, and the commits of that second
    // join it; one more follows a notice that was in flight when a commit came. So a burst of
    // n started seconds is told in at most n + 2 notices (the burst's length is the machine's:
    // 1-2 s on a quiet one, more on a loaded one), where one per commit would be 1,000.
    expect(notices.length).toBeLessThanOrEqual(burstSeconds + 2);
  });

  it("tells a commit made while a notice is in flight with one more notice after it", async () => {
    await subscribe(["events"]);
    // The receiver reads the feed before it answers; a commit lands after that read, before the answer.
    let once = true;
    receiver.beforeAnswer = async (notice) => {
      if (!once || !notice.body.includes("events.changed")) return;
      once = false;
      await commitEvents(e2e.url, RUNNERS);
    };
    await commitEvents(e2e.url, RUNNERS);
    const notices = await receiver.awaitType(
      "events.changed",
      2,
      "a second notice follows the commit made during the first",
    );
    expect(notices[1]?.headers["webhook-id"]).not.toBe(notices[0]?.headers["webhook-id"]);
    receiver.beforeAnswer = undefined;
  });

  it("never fails a commit when the queue cannot take the notice's job, and sends it once the queue can", async () => {
    await subscribe(["events"]);
    const signature =
      "graphile_worker.add_job(text,json,text,timestamp with time zone,integer,text,integer,text[],text)";
    const { rows } = await e2e.database.pool.query<{ definition: string }>(
      `SELECT pg_get_functiondef(to_regprocedure($1)) AS definition`,
      [signature],
    );
    const original = rows[0]?.definition as string;
    // The queue's function fails, as it would while its schema is being replaced.
    await e2e.database.pool.query(
      original
        .replace(/AS \$(\w*)\$[\s\S]*\$\1\$/, "AS $x$begin raise exception 'queue away'; end$x$")
        .replace(/LANGUAGE \w+/, "LANGUAGE plpgsql"),
    );
    try {
      await commitEvents(e2e.url, RUNNERS);
      expect(await owed("state = 'pending'")).toBe(1);
    } finally {
      await e2e.database.pool.query(original);
    }
    // The sweep gives the notice its job.
    await e2e.app.get(WebhookDeliveryWorker).sweep();
    await until(() => receiver.ofType("events.changed").length === 1, "the notice arrives once its job exists", 10_000);
  });

  it("retries a notice answered 503 with the same webhook-id, and logs both attempts", async () => {
    const created = await subscribe(["events"]);
    receiver.answers.push({ status: 503, headers: { "Retry-After": "1" } });
    await commitEvents(e2e.url, RUNNERS);
    const notices = await receiver.awaitType("events.changed", 2, "the retry arrives");
    expect(notices[1]?.headers["webhook-id"]).toBe(notices[0]?.headers["webhook-id"]);
    expect(notices[1]?.body).toBe(notices[0]?.body);
    const page = await request(e2e.origin).get(`${WEBHOOKS}/${created.id}/deliveries`).set(auth());
    const entry = (page.body.deliveries as { id: string }[]).find((d) => d.id === notices[0]?.headers["webhook-id"]);
    expect(entry).toMatchObject({ type: "events.changed", list: "events", state: "delivered", attempts: 2 });
  });

  it("disables a subscription whose receiver answers 410, and sends it nothing more", async () => {
    const created = await subscribe(["events"]);
    receiver.answers.push({ status: 410 });
    await commitEvents(e2e.url, RUNNERS);
    await until(() => receiver.ofType("events.changed").length === 1, "the notice arrives", 10_000);
    await waitForStatus(created.id, "disabled");
    const shown = await request(e2e.origin).get(`${WEBHOOKS}/${created.id}`).set(auth());
    expect(shown.body).toMatchObject({ status: "disabled", status_reason: expect.stringContaining("410") });
    await commitEvents(e2e.url, RUNNERS);
    expect(await owed("subscription_id = $1", [created.id])).toBe(1);
  });

  it("disables a subscription at the end of the retry schedule", async () => {
    const created = await subscribe(["events"]);
    receiver.otherwise = { status: 500 };
    await commitEvents(e2e.url, RUNNERS);
    await waitForStatus(created.id, "disabled", 15_000);
    // The first attempt and the schedule's two retries.
    expect(receiver.ofType("events.changed")).toHaveLength(3);
    const shown = await request(e2e.origin).get(`${WEBHOOKS}/${created.id}`).set(auth());
    expect(shown.body.status_reason).toMatch(/retry schedule/);
  });

  it("signs with the old and the new secret after a rotation", async () => {
    const created = await subscribe(["events"]);
    const rotated = await request(e2e.origin).post(`${WEBHOOKS}/${created.id}/rotate-secret`).set(auth());
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(created.secret);
    expect(Date.parse(rotated.body.previous_secret_expires_at) - Date.now()).toBeGreaterThan(23 * 3_600_000);
    await commitEvents(e2e.url, RUNNERS);
    const [notice] = await receiver.awaitType("events.changed", 1, "the notice arrives");
    expect(String(notice?.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    expect(verified(created.secret, notice as never)).toMatchObject({ type: "events.changed" });
    expect(verified(rotated.body.secret, notice as never)).toMatchObject({ type: "events.changed" });
  });

  it("loses no secret to two rotations at once: the notice is signed by both new secrets", async () => {
    const created = await subscribe(["events"]);
    const rotations = await Promise.all(
      [0, 1].map(() => request(e2e.origin).post(`${WEBHOOKS}/${created.id}/rotate-secret`).set(auth())),
    );
    expect(rotations.map((r) => r.status)).toEqual([200, 200]);
    await commitEvents(e2e.url, RUNNERS);
    const [notice] = await receiver.awaitType("events.changed", 1, "the notice arrives");
    for (const rotated of rotations)
      expect(verified(rotated.body.secret, notice as never)).toMatchObject({ type: "events.changed" });
    expect(() => verified(created.secret, notice as never)).toThrow();
  });

  it("redelivers a logged notice with the same webhook-id", async () => {
    const created = await subscribe(["events"]);
    const [ping] = receiver.received;
    const id = String(ping?.headers["webhook-id"]);
    const response = await request(e2e.origin).post(`${WEBHOOKS}/${created.id}/deliveries/${id}/redeliver`).set(auth());
    expect(response.status).toBe(202);
    expect(response.body.delivery).toMatchObject({ id, state: "pending" });
    await until(() => receiver.received.length === 2, "the redelivery arrives", 10_000);
    expect(receiver.received[1]?.headers["webhook-id"]).toBe(id);
    expect(receiver.received[1]?.body).toBe(ping?.body);
    const unknown = await request(e2e.origin)
      .post(`${WEBHOOKS}/${created.id}/deliveries/msg_00000000000000000000000000000000/redeliver`)
      .set(auth());
    expectProblem(unknown, 404, "webhook-not-found");
  });

  it("shows, changes and deletes a subscription for its own user and client only", async () => {
    const created = await subscribe(["events"]);
    // Another user; and the same user through another client.
    await e2e.database.pool.query(
      "INSERT INTO access_tokens (token_hash, user_id, client_id) VALUES ($1, 'user_runner', 'another-client')",
      [hashToken("tok-runner-other-client")],
    );
    for (const token of [TOKENS.climber, "tok-runner-other-client"]) {
      expect((await request(e2e.origin).get(WEBHOOKS).set(auth(token))).body.webhooks).toEqual([]);
      for (const path of ["", "/deliveries"]) {
        expectProblem(
          await request(e2e.origin).get(`${WEBHOOKS}/${created.id}${path}`).set(auth(token)),
          404,
          "webhook-not-found",
        );
      }
      expectProblem(
        await request(e2e.origin).delete(`${WEBHOOKS}/${created.id}`).set(auth(token)),
        404,
        "webhook-not-found",
      );
      expectProblem(
        await request(e2e.origin).post(`${WEBHOOKS}/${created.id}/rotate-secret`).set(auth(token)),
        404,
        "webhook-not-found",
      );
    }
    expect((await request(e2e.origin).delete(`${WEBHOOKS}/${created.id}`).set(auth())).status).toBe(204);
    expectProblem(await request(e2e.origin).get(`${WEBHOOKS}/${created.id}`).set(auth()), 404, "webhook-not-found");
    await commitEvents(e2e.url, RUNNERS);
    expect(await owed()).toBe(0);
  });

  it("allows at most 10 subscriptions per user and client (409)", async () => {
    for (let i = 0; i < 10; i++) await subscribe(["events"], TOKENS.runner, `/hook${i}`);
    const response = await request(e2e.origin)
      .post(WEBHOOKS)
      .set(auth())
      .send({ url: receiver.url(), lists: ["events"] });
    expectProblem(response, 409, "webhook-limit");
  });

  it("tells a user who left the team nothing more of it, and revokes the subscription", async () => {
    const created = await subscribe(["events"]);
    receiver.answers.push("hang");
    await commitEvents(e2e.url, RUNNERS);
    // A notice owed when the user leaves is not sent again; nor is any of either team's commits after.
    await until(() => receiver.ofType("events.changed").length === 1, "the first notice is in flight", 10_000);
    await e2e.database.pool.query("UPDATE users SET team_id = $1 WHERE id = 'user_runner'", [CLIMBERS]);
    await commitEvents(e2e.url, RUNNERS);
    await commitEvents(e2e.url, CLIMBERS);
    await waitForStatus(created.id, "revoked");
    await sleep(3_000);
    expect(receiver.ofType("events.changed")).toHaveLength(1);
    const shown = await request(e2e.origin).get(`${WEBHOOKS}/${created.id}`).set(auth());
    expect(shown.body.status_reason).toBe("the user left the team");
    const log = await request(e2e.origin).get(`${WEBHOOKS}/${created.id}/deliveries`).set(auth());
    expect(log.body.deliveries[0]).toMatchObject({ type: "events.changed", state: "failed" });
    // Back in the team, the subscription stays revoked: nothing is told.
    await e2e.database.pool.query("UPDATE users SET team_id = $1 WHERE id = 'user_runner'", [RUNNERS]);
    await commitEvents(e2e.url, RUNNERS);
    expect(await owed("subscription_id = $1", [created.id])).toBe(1);
  });

  it("revokes the subscriptions of a user whose tokens of the client are all revoked", async () => {
    const created = await subscribe(["events"]);
    await e2e.database.pool.query(
      "UPDATE access_tokens SET revoked_at = now() WHERE user_id = 'user_runner' AND client_id = $1 AND revoked_at IS NULL",
      [CLIENT_ID],
    );
    await commitEvents(e2e.url, RUNNERS);
    // Its tokens all revoked, the user cannot ask the api: the row is read directly.
    const status = async () =>
      (
        await e2e.database.pool.query<{ status: string; status_reason: string }>(
          "SELECT status, status_reason FROM webhook_subscriptions WHERE id = $1",
          [created.id],
        )
      ).rows[0];
    const deadline = Date.now() + 10_000;
    while ((await status())?.status !== "revoked" && Date.now() < deadline) await sleep(50);
    expect(await status()).toEqual({ status: "revoked", status_reason: "the user holds no valid token of the client" });
    expect(receiver.ofType("events.changed")).toEqual([]);
    await e2e.database.pool.query(
      "UPDATE access_tokens SET revoked_at = NULL WHERE user_id = 'user_runner' AND client_id = $1 AND token_hash <> $2",
      [CLIENT_ID, hashToken(TOKENS.revoked)],
    );
  });

  async function waitForStatus(id: string, status: string, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const shown = await request(e2e.origin).get(`${WEBHOOKS}/${id}`).set(auth());
      if (shown.body.status === status) return;
      if (Date.now() > deadline) throw new Error(`subscription ${id} is ${shown.body.status}, not ${status}`);
      await sleep(100);
    }
  }
});

describe("webhooks on the embedded database", () => {
  const e2e = appForSuite(
    () => startE2eApp("embedded", contractFixture(), { env: { WEBHOOK_ALLOWED_HOSTS: "127.0.0.1" } }),
    120_000,
  );

  it("answers 501 webhooks-unavailable naming DATABASE_URL, after authentication", async () => {
    const response = await request(e2e.server).get(WEBHOOKS).set("Authorization", `Bearer ${TOKENS.runner}`);
    expectProblem(response, 501, "webhooks-unavailable");
    expect(response.body.detail).toContain("DATABASE_URL");
    expectProblem(await request(e2e.server).get(WEBHOOKS), 401, "unauthorized");
  });
});
