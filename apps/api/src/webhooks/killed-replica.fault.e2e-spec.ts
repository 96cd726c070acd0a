import { spawn } from "node:child_process";
import type { AddressInfo } from "node:net";
import {
  contractFixture,
  RUNNERS,
  type RunningApi,
  startCompiledApi,
  TOKENS,
  until,
} from "@community/fixtures/testing";
import request from "supertest";
import { type E2eApp, listenOnLoopback, startE2eAppOn } from "../testing/e2e-app";
import { TestReceiver } from "./testing/receiver";

/**
 * Nothing is lost to a crash (contract 10.2): a replica killed (SIGKILL) while a notice is in
 * flight and another is waiting leaves both to another replica, which sends them with the same
 * webhook-ids once the dead replica's lock is given back (WEBHOOK_STALE_LOCK_SECONDS).
 */
const WEBHOOKS = "/v1/me/community/team/webhooks";
const ENV = {
  WEBHOOK_ALLOWED_HOSTS: "127.0.0.1",
  WEBHOOK_TIMEOUT_MS: "3000",
  WEBHOOK_STALE_LOCK_SECONDS: "4",
  WEBHOOK_SWEEP_INTERVAL_SECONDS: "1",
  RATE_LIMIT_MAX: "0",
};

function psql(url: string, sql: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("psql", [url, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-c", sql], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`psql exited ${code}: ${stderr}`))));
  });
}

describe("webhooks when a replica is killed", () => {
  let first: RunningApi | undefined;
  let second: E2eApp | undefined;
  let receiver: TestReceiver;

  beforeAll(async () => {
    receiver = await TestReceiver.start();
  });

  afterAll(async () => {
    await second?.close();
    // Its process is gone already (SIGKILL); this drops the database.
    await first?.stop();
    await receiver?.close();
  });

  it("delivers the notices of a replica killed mid-delivery from another replica, with the same ids", async () => {
    first = await startCompiledApi("webhooks_kill", contractFixture(), ENV);
    const url = first.databaseUrl;
    const created = await request(first.baseUrl)
      .post(WEBHOOKS)
      .set("Authorization", `Bearer ${TOKENS.runner}`)
      .send({ url: receiver.url(), lists: ["events", "guides"] });
    expect(created.status).toBe(201);

    // The events notice hangs at the receiver (in flight on the first replica) ...
    receiver.answers.push("hang");
    await psql(
      url,
      `INSERT INTO events (id, team_id, account_id, slug, name, duration_seconds, scheduled_at, offer_replay_purchase,
         price_in_cents, currency)
       VALUES ('ev_killed', '${RUNNERS}', 'acc_jane', 'ev_killed', 'ev_killed', 60, '2026-03-05T18:30:00Z', false, 0, 'USD')`,
    );
    await until(() => receiver.ofType("events.changed").length === 1, "the events notice is in flight", 20_000);
    // ... and a guides notice is due, not yet sent, when the replica dies.
    await psql(
      url,
      `INSERT INTO guides (id, team_id, account_id, slug, name, price_in_cents, currency)
       VALUES ('gd_killed', '${RUNNERS}', 'acc_jane', 'gd_killed', 'gd_killed', 0, 'USD')`,
    );
    first.api.kill("SIGKILL");
    await first.api.exited;
    const inFlightId = receiver.ofType("events.changed")[0]?.headers["webhook-id"];
    expect(receiver.ofType("guides.changed")).toEqual([]);

    second = await startE2eAppOn(url, undefined, undefined, ENV);
    await listenOnLoopback(second);
    await until(
      () => receiver.ofType("events.changed").length === 2 && receiver.ofType("guides.changed").length === 1,
      "the other replica delivers both notices",
      30_000,
    );
    expect(receiver.ofType("events.changed")[1]?.headers["webhook-id"]).toBe(inFlightId);

    const secondBase = `http://127.0.0.1:${(second.app.getHttpServer().address() as AddressInfo).port}`;
    const log = await request(secondBase)
      .get(`${WEBHOOKS}/${created.body.id}/deliveries`)
      .set("Authorization", `Bearer ${TOKENS.runner}`);
    const states = (log.body.deliveries as { type: string; state: string }[]).map((d) => `${d.type}:${d.state}`);
    expect(states.sort()).toEqual(["events.changed:delivered", "guides.changed:delivered", "webhook.ping:delivered"]);
  }, 90_000);
});
