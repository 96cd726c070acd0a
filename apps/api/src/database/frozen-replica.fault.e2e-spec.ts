import { testAdminUrl } from "@community/db/testing";
import { contractFixture, TOKENS } from "@community/fixtures/testing";
import request from "supertest";
import { type E2eApp, startE2eApp } from "../testing/e2e-app";
import { reportFault, timed } from "../testing/fault-report";
import { TcpProxy } from "../testing/tcp-proxy";

const EVENTS = "/v1/me/community/team/events";
const GUIDES = "/v1/me/community/team/guides";
const READS = 20;
const CONCURRENCY = 4;

/**
 * A replica that stops answering without closing its connections (a stalled host, SIGSTOP): the
 * proxy in front of it stops carrying bytes and holds new connections unanswered. The primary is
 * healthy, so every list read must still be answered, from the primary.
 */
describe("list reads while the read replica is frozen", () => {
  let primary: TcpProxy;
  let replica: TcpProxy;
  let e2e: E2eApp;
  const get = (path: string) =>
    request(e2e.server).get(path).set("Authorization", `Bearer ${TOKENS.runner}`).timeout(30_000);

  beforeAll(async () => {
    primary = await TcpProxy.inFrontOf(testAdminUrl());
    replica = await TcpProxy.inFrontOf(testAdminUrl());
    e2e = await startE2eApp("postgres", contractFixture(), {
      rewriteUrl: (url) => primary.route(url),
      readUrl: (url) => replica.route(url),
      // Every list request reads its page: none is answered from memory.
      env: { PAGE_CACHE_BYTES: "0", DATABASE_READ_TIMEOUT_MS: "300" },
    });
  }, 120_000);

  afterAll(async () => {
    replica?.thaw();
    await e2e?.close();
    await primary?.cut();
    await replica?.cut();
  });

  it("answers every list read from the primary, and the replica's breaker takes it out", async () => {
    // Warm: the replica's pool holds open connections, as in production.
    const warm = await Promise.all(Array.from({ length: CONCURRENCY * 2 }, () => get(EVENTS)));
    expect(warm.map((response) => response.status)).toEqual(warm.map(() => 200));
    const expected = { [EVENTS]: (await get(EVENTS)).body, [GUIDES]: (await get(GUIDES)).body };
    replica.freeze();

    const results: { status: number; ms: number; same: boolean }[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < READS) {
          const path = next++ % 2 === 0 ? EVENTS : GUIDES;
          const { ms, value } = await timed(() => get(path));
          results.push({
            status: value.status,
            ms,
            same: JSON.stringify(value.body) === JSON.stringify(expected[path]),
          });
        }
      }),
    );
    const answered = results.filter((r) => r.status === 200 && r.same).length;
    const unavailable = results.filter((r) => r.status === 503).length;
    const slowest = Math.max(...results.map((r) => r.ms));
    const replicaState = (await request(e2e.server).get("/health/ready")).body.details?.replica?.state;
    reportFault(
      "frozen read replica",
      `${answered} of ${READS} list reads answered (${unavailable} x 503), slowest ${Math.round(slowest)} ms; replica state ${replicaState}`,
    );
    expect(results.map((r) => r.status)).toEqual(results.map(() => 200));
    expect(answered).toBe(READS);
    expect(replicaState).toBe("fallback");
  }, 120_000);
});
