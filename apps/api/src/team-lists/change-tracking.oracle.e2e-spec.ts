import { randomInt } from "node:crypto";
import request from "supertest";
import { type Backend, type E2eApp, startE2eApp } from "../testing/e2e-app";
import { FeedKeeper } from "./testing/feed-keeper";
import { oracleFixture, PageWalker, runOracle } from "./testing/list-oracle";
import { WalkRepeater } from "./testing/walk-repeater";

/**
 * The team lists against an oracle under concurrent writes (testing/list-oracle.ts): seeded, so a
 * failure names the seed that replays it (ORACLE_SEED), and bounded by ORACLE_SECONDS per database.
 * Two readers walk pages; a third keeps a copy of every team's lists through the changes feed
 * (testing/feed-keeper.ts), held against plain SQL at every quiet point; a fourth asks for cursor
 * and filtered pages again and again (testing/walk-repeater.ts), so that the page cache answers
 * many of them, and holds them against plain SQL too.
 */
function integerFromEnv(name: string, fallback: () => number, max: number): number {
  const text = process.env[name];
  if (text === undefined) return fallback();
  if (!/^[0-9]+$/.test(text) || Number(text) > max) throw new Error(`${name} must be an integer from 0 to ${max}`);
  return Number(text);
}

const seed = integerFromEnv("ORACLE_SEED", () => randomInt(2 ** 31), 2 ** 31 - 1);
const seconds = integerFromEnv("ORACLE_SECONDS", () => 45, 3_600);

describe.each<Backend>(["postgres", "embedded"])("team lists against the oracle on %s", (backend) => {
  let e2e: E2eApp;

  beforeAll(async () => {
    e2e = await startE2eApp(backend, oracleFixture(seed), { env: { RATE_LIMIT_MAX: "0" } });
  }, 120_000);

  afterAll(async () => {
    await e2e?.close();
  });

  it(
    "serves every page as the plain offset query, totals as count(*), 304 only for the same bytes, versions only forward, and a copy kept by the changes feed as plain SQL",
    async () => {
      console.log(`oracle seed ${seed} on ${backend}: ORACLE_SEED=${seed} replays it`);
      const feed = new FeedKeeper();
      const repeater = new WalkRepeater();
      const tally = await runOracle({
        backend,
        e2e,
        seed,
        seconds,
        readers: [new PageWalker(), new PageWalker(), feed, repeater],
      });
      console.log(
        `oracle: ${backend} seed ${seed}: ${tally.interleaved} write/read interleavings, ${tally.switches} switches ` +
          `between actors (${tally.steps} steps, ` +
          `${tally.readsDuringWrites} reads while writes were open, ${tally.waits} lock waits, ${tally.commits} commits, ` +
          `${tally.rollbacks} rollbacks, ${tally.loads} loads, ${tally.quietPoints} quiet points, ` +
          `statements ${JSON.stringify(tally.statements)}, aborted ${JSON.stringify(tally.aborted)})`,
      );
      const metrics = (await request(e2e.server).get("/metrics")).text;
      const polls = (answer: string) => pollCount(metrics, answer);
      console.log(
        `oracle: ${backend} seed ${seed}: ${feed.summary()}; polls answered from the version ${polls("unchanged")}, ` +
          `from the log ${polls("read")}`,
      );
      console.log(`oracle: ${backend} seed ${seed}: ${repeater.summary()}`);
      for (const abort of tally.trackingAborts) console.log(`oracle abort in the tracking: ${abort}`);
      expect(tally.quietPoints).toBeGreaterThan(0);
      // The feed's copies were held against SQL with changes applied, not only after fresh walks.
      expect(feed.tally.checksWithChanges).toBeGreaterThan(0);
      // And copies rebuilt from a first walk and every change since its token, however old.
      expect(feed.tally.oldTokenChecks).toBeGreaterThan(0);
      // Cached cursor and filtered pages, and polls answered from the version, were held against SQL too.
      expect(repeater.tally.quietHits).toBeGreaterThan(0);
      expect(polls("unchanged")).toBeGreaterThan(0);
      // The tracking must never abort a transaction (a deadlock on its own locks) that would commit without it.
      expect(tally.trackingAborts).toEqual([]);
    },
    (seconds + 120) * 1_000,
  );
});

function pollCount(metrics: string, answer: string): number {
  const line = metrics.split("\n").find((l) => l.startsWith(`list_changes_polls_total{answer="${answer}"} `));
  return Number(line?.split(" ")[1] ?? 0);
}
