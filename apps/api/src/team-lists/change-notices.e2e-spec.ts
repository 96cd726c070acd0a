import { ChangeNotices, type ChangeNoticesState, createDatabase, type Database, type ListWatch } from "@community/db";
import { createTestDatabase, type TestDatabase, testAdminUrl } from "@community/db/testing";
import { loadFixture } from "@community/fixtures";
import { contractFixture, RUNNERS, until } from "@community/fixtures/testing";
import { TcpProxy } from "../testing/tcp-proxy";

/**
 * ChangeNotices (@community/db) on PostgreSQL, its LISTEN connection through a proxy that the test
 * cuts and restores: a commit wakes a watch of its list; losing the connection wakes every watch
 * (notices may have been missed) and turns to polling the lists' versions, which still sees a
 * commit; the connection is made again, and notices wake watches once more. (Here rather than in
 * packages/db for the TCP proxy, which the api's tests share.)
 */
describe(ChangeNotices.name, () => {
  let testDb: TestDatabase;
  let database: Database;
  let proxy: TcpProxy;
  let notices: ChangeNotices;
  const states: ChangeNoticesState[] = [];
  let serial = 0;

  beforeAll(async () => {
    testDb = await createTestDatabase("notices");
    database = createDatabase({ url: testDb.url, poolMax: 2 });
    await loadFixture(database.prisma, contractFixture());
    proxy = await TcpProxy.inFrontOf(testAdminUrl());
    notices = new ChangeNotices({
      url: proxy.route(testDb.url),
      versions: database.pool,
      pollIntervalMs: 100,
      firstRetryMs: 50,
      maxRetryMs: 200,
      connectTimeoutMs: 1_000,
      onState: (state) => states.push(state),
    });
    notices.start();
    await until(() => notices.state === "listening", "it listens", 20_000);
  });

  afterAll(async () => {
    await notices?.stop();
    await proxy?.cut();
    await database?.close();
    await testDb?.drop();
  });

  /** Whether the watch saw a change within a generous bound (false: it did not). */
  const changed = (watch: ListWatch) =>
    Promise.race([
      watch.changed.then(() => true),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 10_000).unref()),
    ]);

  const commitEvent = (team: string) =>
    database.pool.query(
      `INSERT INTO events (id, team_id, account_id, slug, name, duration_seconds, scheduled_at, offer_replay_purchase,
                           price_in_cents, currency)
       VALUES ($1::text, $2, 'acc_jane', $1::text, $1::text, 60, '2026-03-05T18:30:00Z', false, 0, 'USD')`,
      [`ev_notice_${serial++}`, team],
    );

  /** Whether a commit to the runners' events, made once a watch of them is ready, wakes that watch. */
  async function commitWakesWatch(): Promise<boolean> {
    const watch = notices.watch({ teamId: RUNNERS, list: "events" });
    await watch.ready;
    await commitEvent(RUNNERS);
    const woken = await changed(watch);
    watch.cancel();
    return woken;
  }

  it("wakes a watch of the list a commit changed, and only of that list", async () => {
    const watch = notices.watch({ teamId: RUNNERS, list: "events" });
    const guides = notices.watch({ teamId: RUNNERS, list: "guides" });
    await Promise.all([watch.ready, guides.ready]);
    await commitEvent(RUNNERS);
    expect(await changed(watch)).toBe(true);
    const woken = await Promise.race([guides.changed.then(() => true), Promise.resolve(false)]);
    expect(woken).toBe(false);
    watch.cancel();
    guides.cancel();
  });

  it("says a list is quiet since a time only while it was listened to throughout and no notice of it came", async () => {
    const events = { teamId: RUNNERS, list: "events" };
    const guides = { teamId: RUNNERS, list: "guides" };
    const before = performance.now();
    expect(notices.quietSince(events, before)).toBe(true);
    const watch = notices.watch(events);
    await watch.ready;
    await commitEvent(RUNNERS);
    expect(await changed(watch)).toBe(true);
    watch.cancel();
    // A notice of events since `before`: not quiet; guides are; a time after the notice is quiet again.
    expect(notices.quietSince(events, before)).toBe(false);
    expect(notices.quietSince(guides, before)).toBe(true);
    expect(notices.quietSince(events, performance.now())).toBe(true);
    // A time before listening began is never quiet: commits then were not heard.
    expect(notices.quietSince(guides, 0)).toBe(false);
  });

  it("wakes every watch when the connection is lost, polls meanwhile, and listens again once it is back", async () => {
    const before = notices.watch({ teamId: RUNNERS, list: "guides" });
    await before.ready;
    await proxy.cut();
    // Notices may have been missed: the watch reads again.
    expect(await changed(before)).toBe(true);
    before.cancel();
    expect(notices.state).toBe("polling");

    expect(await commitWakesWatch()).toBe(true);

    await proxy.start();
    await until(() => notices.state === "listening", "it listens again", 20_000);
    expect(await commitWakesWatch()).toBe(true);
    expect(states).toEqual(["listening", "polling", "listening"]);
    // A time from before the connection was lost is not quiet, whatever came since.
    expect(notices.quietSince({ teamId: RUNNERS, list: "guides" }, 1)).toBe(false);
  });
  it("survives the connection cut while its probe's sender waits for an answer, and listens again", async () => {
    // The probe opens a second connection to send one notice. Cut under that query, the sender's
    // connection emits 'error'; with no listener, that ended the process.
    await proxy.cut();
    await until(() => notices.state === "polling", "it polls", 20_000);
    let cutUnderProbe = false;
    proxy.onSent = (chunk) => {
      if (cutUnderProbe || !chunk.includes("pg_notify")) return;
      cutUnderProbe = true;
      void proxy.cut().then(() => proxy.start());
    };
    await proxy.start();
    await until(() => cutUnderProbe, "a probe was sent and cut", 20_000);
    proxy.onSent = undefined;
    await until(() => notices.state === "listening", "it listens again", 20_000);
    expect(await commitWakesWatch()).toBe(true);
  });
});
