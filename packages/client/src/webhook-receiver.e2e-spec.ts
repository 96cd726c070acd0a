import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createDatabase, type Database } from "@community/db";
import {
  contractFixture,
  RUNNERS,
  type RunningApi,
  startCompiledApi,
  TOKENS,
  until,
} from "@community/fixtures/testing";
import { Webhook } from "standardwebhooks";
import { ExampleProcess } from "./testing/example-process";

const PACKAGE_DIR = path.resolve(__dirname, "..");
const EXAMPLE = path.join(PACKAGE_DIR, "examples/webhook-receiver.mjs");
const SYNC_DOC = path.resolve(PACKAGE_DIR, "../../docs/sync.md");
const fixture = contractFixture();
const RUNNER_EVENTS = fixture.events.filter((e) => e.team_id === RUNNERS).length;

const newSecret = () => `whsec_${randomBytes(32).toString("base64")}`;
const notice = (type: string, list: string) =>
  JSON.stringify({
    type,
    timestamp: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
    data: { list, changes: `/v1/me/community/team/${list}/changes` },
  });
const signedHeaders = (
  secrets: string[],
  body: string,
  at = new Date(),
  id = `msg_${randomBytes(6).toString("hex")}`,
) => ({
  "content-type": "application/json",
  "webhook-id": id,
  "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
  "webhook-signature": secrets.map((secret) => new Webhook(secret).sign(id, at, body)).join(" "),
});

/**
 * The receiver of docs/sync.md ("A webhook receiver"), run as the page shows it (the page holds
 * packages/client/examples/webhook-receiver.mjs verbatim) against the compiled api: notices
 * signed by standardwebhooks, as the api signs them, make it sync the list they name.
 */
describe("the webhook receiver of docs/sync.md", () => {
  let running: RunningApi;
  let database: Database;
  let baseUrl: string;
  let scratch: string;
  let receiver: ExampleProcess;
  let receiverUrl: string;
  const secretFile = () => path.join(scratch, "webhook-secret");
  const post = (body: string, headers: Record<string, string>) =>
    fetch(receiverUrl, { method: "POST", body, headers }).then(async (r) => ({
      status: r.status,
      text: await r.text(),
    }));

  beforeAll(async () => {
    running = await startCompiledApi("client_webhook_receiver", fixture, { WEBHOOK_ALLOWED_HOSTS: "127.0.0.1" });
    baseUrl = running.baseUrl;
    database = createDatabase({ url: running.databaseUrl, poolMax: 2 });
    scratch = mkdtempSync(path.join(os.tmpdir(), "webhook-receiver-"));
    receiver = new ExampleProcess(EXAMPLE, scratch, {
      PATH: process.env.PATH,
      COMMUNITY_API_URL: baseUrl,
      COMMUNITY_API_TOKEN: TOKENS.runner,
      PORT: "0",
      WEBHOOK_SECRET_FILE: secretFile(),
    });
    await until(() => /^listening on (\S+)$/m.test(receiver.stdout) || receiver.exited, "the receiver listens");
    receiverUrl = /^listening on (\S+)$/m.exec(receiver.stdout)?.[1] ?? `(not listening: ${receiver.stderr})`;
  }, 60_000);

  afterAll(async () => {
    await receiver?.stop("SIGTERM");
    await database?.close();
    await running?.stop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it("is shown whole on the page", () => {
    const page = readFileSync(SYNC_DOC, "utf8");
    const blocks = [...page.matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
    expect(blocks).toContain(readFileSync(EXAMPLE, "utf8"));
  });

  it("catches up both lists at start", async () => {
    // The two lists sync at once: either may finish first.
    await until(
      () => /^events: full walk/m.test(receiver.stdout) && /^guides: full walk/m.test(receiver.stdout),
      "the start's syncs are done",
    );
    expect(receiver.stdout).toMatch(
      new RegExp(`^events: full walk, ${RUNNER_EVENTS} upserts, 0 deletes, ${RUNNER_EVENTS} items$`, "m"),
    );
    expect(receiver.stderr).toBe("");
  });

  it("answers the creation's ping before it has a secret, and nothing else", async () => {
    expect(
      await post(notice("webhook.ping", "events"), signedHeaders([newSecret()], notice("webhook.ping", "events"))),
    ).toMatchObject({
      status: 204,
    });
    const changed = notice("events.changed", "events");
    expect((await post(changed, signedHeaders([newSecret()], changed))).status).toBe(503);
  });

  it("answers a signed notice at once, then syncs the list it names: a write by SQL reaches its copy", async () => {
    const secret = newSecret();
    writeFileSync(secretFile(), `${secret}\n`);
    const [first] = fixture.events.filter((e) => e.team_id === RUNNERS).map((e) => e.id);
    await database.prisma.$executeRawUnsafe("DELETE FROM events WHERE id = $1", first);

    const body = notice("events.changed", "events");
    const started = Date.now();
    const answer = await post(body, signedHeaders([secret], body));
    expect(answer.status).toBe(204);
    expect(Date.now() - started).toBeLessThan(1_000);
    await until(() => /^events: changes, /m.test(receiver.stdout), "the receiver syncs the events");
    expect(receiver.stdout).toMatch(
      new RegExp(`^events: changes, 0 upserts, 1 deletes, ${RUNNER_EVENTS - 1} items$`, "m"),
    );
  });

  it("takes either secret of its file while it rolls over, and a notice with two signatures", async () => {
    const [previous, next] = [newSecret(), newSecret()];
    writeFileSync(secretFile(), `${previous}\n${next}\n`);
    const body = notice("guides.changed", "guides");
    expect((await post(body, signedHeaders([next], body))).status).toBe(204);
    expect((await post(body, signedHeaders([newSecret(), previous], body))).status).toBe(204);
    await until(() => /^guides: changes, /m.test(receiver.stdout), "the receiver syncs the guides");
  });

  it("refuses a bad signature, a stale notice and a malformed one with a 4xx (never 410), and any other method", async () => {
    const secret = newSecret();
    writeFileSync(secretFile(), secret);
    const body = notice("events.changed", "events");
    const tampered = await post(body.replace("events.changed", "guides.changed"), signedHeaders([secret], body));
    expect(tampered).toEqual({ status: 401, text: "no signature of webhook-signature matches the secret" });
    const old = new Date(Date.now() - 600_000);
    expect(await post(body, signedHeaders([secret], body, old))).toMatchObject({
      status: 401,
      text: expect.stringMatching(/webhook-timestamp is \d+ s away from now/),
    });
    const notJson = "ping";
    expect(await post(notJson, signedHeaders([secret], notJson))).toMatchObject({ status: 400 });
    expect(await post(body, { "content-type": "application/json" })).toEqual({
      status: 400,
      text: "the webhook-id header is missing",
    });
    expect((await fetch(receiverUrl)).status).toBe(405);
    expect(receiver.stderr).toBe("");
  });

  it("subscribed through the api as the page does, is told of a commit by SQL and syncs it", async () => {
    // As on the page: the receiver has no secret until the subscription exists.
    rmSync(secretFile(), { force: true });
    const created = await fetch(`${baseUrl}/v1/me/community/team/webhooks`, {
      method: "POST",
      headers: { Authorization: `Bearer ${TOKENS.runner}`, "Content-Type": "application/json" },
      body: JSON.stringify({ url: receiverUrl, lists: ["events", "guides"], description: "docs/sync.md receiver" }),
    });
    expect(created.status).toBe(201);
    writeFileSync(secretFile(), `${((await created.json()) as { secret: string }).secret}\n`);
    const before = receiver.stdout.length;
    await database.prisma.$executeRawUnsafe(
      `INSERT INTO events (id, team_id, account_id, slug, name, duration_seconds, scheduled_at, offer_replay_purchase,
         price_in_cents, currency)
       VALUES ('ev_told', $1, 'acc_jane', 'ev_told', 'ev_told', 60, '2026-03-05T18:30:00Z', false, 0, 'USD')`,
      RUNNERS,
    );
    await until(
      () => /^events: changes, 1 upserts, 0 deletes/m.test(receiver.stdout.slice(before)),
      "the receiver is told and syncs",
    );
    expect(receiver.stderr).toBe("");
  });
});
