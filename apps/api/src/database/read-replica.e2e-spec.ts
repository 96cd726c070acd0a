import { testAdminUrl } from "@community/db/testing";
import { contractFixture, TOKENS } from "@community/fixtures/testing";
import request from "supertest";
import { expectProblem } from "../testing/contract-assertions";
import { type E2eApp, startE2eApp } from "../testing/e2e-app";
import { TcpProxy } from "../testing/tcp-proxy";

const EVENTS = "/v1/me/community/team/events";
const GUIDES = "/v1/me/community/team/guides";
/** A table only the list page statements read, and one only the token lookup reads. */
/** Only the page statement has this CTE (the token lookup reads the list versions too). */
const LIST_SQL = "page AS (";
const TOKEN_SQL = "access_tokens";

/** What the clients sent through a proxy since the last `reset()`, as text (queries are sent as text). */
function capture(proxy: TcpProxy) {
  let sent = "";
  proxy.onSent = (chunk) => {
    sent += chunk.toString("latin1");
  };
  return {
    text: () => sent,
    reset: () => {
      sent = "";
    },
  };
}

/**
 * DATABASE_READ_URL names a second server: here a proxy to the same test database (a real
 * streaming replica runs in the scale check). Each proxy shows which queries went its way.
 */
describe("read replica (DATABASE_READ_URL)", () => {
  let primary: TcpProxy;
  let replica: TcpProxy;
  let e2e: E2eApp;
  let sentToPrimary: ReturnType<typeof capture>;
  let sentToReplica: ReturnType<typeof capture>;
  const get = (path: string, token: string = TOKENS.runner) =>
    request(e2e.server).get(path).set("Authorization", `Bearer ${token}`).timeout(20_000);
  const replicaState = async () => (await request(e2e.server).get("/health/ready")).body.details?.replica;

  beforeAll(async () => {
    primary = await TcpProxy.inFrontOf(testAdminUrl());
    replica = await TcpProxy.inFrontOf(testAdminUrl());
    sentToPrimary = capture(primary);
    sentToReplica = capture(replica);
    e2e = await startE2eApp("postgres", contractFixture(), {
      rewriteUrl: (url) => primary.route(url),
      readUrl: (url) => replica.route(url),
      // No page cache: every list request reads its page, so each one shows where reads go.
      env: { DB_BREAKER_PROBE_MS: "100", PAGE_CACHE_BYTES: "0" },
    });
  });

  afterAll(async () => {
    await e2e?.close();
    await primary?.cut();
    await replica?.cut();
  });

  it("reads list pages from the replica and looks tokens up on the primary", async () => {
    sentToPrimary.reset();
    sentToReplica.reset();
    for (const path of [EVENTS, GUIDES, `${EVENTS}?page=2&per_page=1`]) expect((await get(path)).status).toBe(200);
    expect(sentToReplica.text()).toContain(LIST_SQL);
    expect(sentToReplica.text()).not.toContain(TOKEN_SQL);
    expect(sentToPrimary.text()).toContain(TOKEN_SQL);
    expect(sentToPrimary.text()).not.toContain(LIST_SQL);

    // A rejected token never reaches the replica either.
    sentToReplica.reset();
    const bytesBefore = replica.bytesSent;
    expectProblem(await get(EVENTS, "not-a-known-token"), 401, "unauthorized");
    expect(replica.bytesSent).toBe(bytesBefore);
    expect((await replicaState()).state).toBe("ok");
  });

  it("reads from the primary while the replica is unreachable, stays ready, and returns to the replica", async () => {
    const before = await get(EVENTS);
    await replica.cut();
    sentToPrimary.reset();
    // Each read the replica cannot serve goes to the primary until its breaker opens (3 failures).
    for (let i = 0; i < 4; i++) {
      const response = await get(EVENTS);
      expect(response.status).toBe(200);
      expect(response.headers.etag).toBe(before.headers.etag);
      expect(response.body).toEqual(before.body);
    }
    expect(sentToPrimary.text()).toContain(LIST_SQL);

    const ready = await request(e2e.server).get("/health/ready");
    expect(ready.status).toBe(200);
    expect(ready.body.details.replica).toEqual({
      status: "up",
      state: "fallback",
      message: "the read replica is unreachable: lists are read from the primary",
    });
    const metrics = (await request(e2e.server).get("/metrics")).text;
    expect(metrics).toMatch(/^db_replica_circuit_open 1$/m);
    expect(Number(metrics.match(/^db_replica_fallback_reads_total (\d+)$/m)?.[1])).toBeGreaterThanOrEqual(4);

    await replica.start();
    for (let attempt = 0; attempt < 50 && (await replicaState()).state !== "ok"; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect((await replicaState()).state).toBe("ok");
    sentToReplica.reset();
    expect((await get(GUIDES)).status).toBe(200);
    expect(sentToReplica.text()).toContain(LIST_SQL);
  }, 60_000);
});
