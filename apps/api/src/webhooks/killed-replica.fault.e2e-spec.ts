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
import { insertEventSql, insertGuideSql, psql } from "../testing/psql";
import { receiverForSuite } from "./testing/receiver";

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

describe("webhooks when a replica is killed", () => {
  let first: RunningApi | undefined;
  let second: E2eApp | undefined;
  const receiver = receiverForSuite();

  afterAll(async () => {
    await second?.close();
    // Its process is gone already (SIGKILL); this drops the database.
    await first?.stop();
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
    await psql(url, insertEventSql("ev_killed", RUNNERS));
    await until(() => receiver.ofType("events.changed").length === 1, "the events notice is in flight", 20_000);
    // ... and a guides notice is due, not yet sent, when the replica dies.
    await psql(url, insertGuideSql("gd_killed", RUNNERS));
    first.api.kill("SIGKILL");
    await first.api.exited;
    const inFlightId = receiver.ofType("events.changed")[0]?.headers["webhook-id"];
    expect(receiver.ofType("guides.changed")).toEqual([]);

    second = await startE2eAppOn(url, undefined, undefined, ENV);
    const { url: secondBase } = await listenOnLoopback(second);
    await until(
      () => receiver.ofType("events.changed").length === 2 && receiver.ofType("guides.changed").length === 1,
      "the other replica delivers both notices",
      30_000,
    );
    expect(receiver.ofType("events.changed")[1]?.headers["webhook-id"]).toBe(inFlightId);

    const log = await request(secondBase)
      .get(`${WEBHOOKS}/${created.body.id}/deliveries`)
      .set("Authorization", `Bearer ${TOKENS.runner}`);
    const states = (log.body.deliveries as { type: string; state: string }[]).map((d) => `${d.type}:${d.state}`);
    expect(states.sort()).toEqual(["events.changed:delivered", "guides.changed:delivered", "webhook.ping:delivered"]);
  }, 90_000);
});
