import { createDatabase } from "@community/db";
import { type FixtureFile, validateFixture } from "@community/domain";
import { loadFixture } from "@community/fixtures";
import { copyFloorSeconds } from "./copy-floor";
import { BENCH_TOKEN, baseFixture, LARGE_TEAM, teamItems, teamSizes } from "./dataset";
import { progressBar } from "./progress";

export interface LoadReport {
  n: number;
  /** Rows of events (and as many of guides) in the tables. */
  rowsPerTable: number;
  /** Seconds to validate the large team's N events (what `pnpm seed` does while reading the file). */
  largeTeamEventsValidationSeconds: number;
  /** Seconds to load the large team's N events through the seed loader after that (one transaction). */
  largeTeamEventsSeconds: number;
  /** Seconds to load the large team's N guides (one transaction). */
  largeTeamGuidesSeconds: number;
  /** Seconds of a plain COPY of the same N events into a fresh copy of the schema (the floor of a load). */
  copyFloorEventsSeconds: number;
  /** Seconds for everything: base rows, the large team, the other teams, VACUUM ANALYZE. */
  totalSeconds: number;
}

/**
 * Loads the benchmark data through the seed app's loader, one transaction per team (the loader's
 * unit), times a plain COPY of the large team's events into a fresh schema beside it, then VACUUM ANALYZE as autovacuum would eventually do, so plans and the visibility map
 * are those of a settled table rather than of the first seconds after a bulk load.
 */
export async function loadBenchData(url: string, n: number): Promise<LoadReport> {
  const database = createDatabase({ url, poolMax: 2, statementTimeoutMs: 30 * 60_000 });
  const started = performance.now();
  const large = { events: 0, guides: 0 };
  let validationSeconds = 0;
  try {
    await loadFixture(database, baseFixture());
    const sizes = teamSizes(n);
    const grandTotal = sizes.reduce((sum, team) => sum + 2 * team.count, 0);
    const bar = progressBar(`load N=${n.toLocaleString("en-US")}`);
    let before = 0;
    for (const { teamId, count } of sizes) {
      const items = teamItems(teamId, count);
      for (const list of ["events", "guides"] as const) {
        const fixture: FixtureFile = {
          ...{ accounts: [], teams: [], users: [], access_tokens: [], events: [], guides: [] },
          [list]: items[list],
        };
        // Validated first and timed apart, as `pnpm seed` validates while it reads the file.
        let started = performance.now();
        if (!validateFixture(fixture).ok) throw new Error(`the generated ${list} of ${teamId} are invalid`);
        if (teamId === sizes[0]?.teamId && list === "events") validationSeconds = (performance.now() - started) / 1000;
        started = performance.now();
        // Through the pool: collections this large stream through COPY into staging and one merge.
        await loadFixture(database, fixture, {
          alreadyValidated: true,
          onProgress: (done) => bar.update(before + done, grandTotal),
        });
        if (teamId === sizes[0]?.teamId) large[list] = (performance.now() - started) / 1000;
        before += count;
      }
    }
    bar.finish();
    await database.pool.query("VACUUM ANALYZE");
    const totalSeconds = (performance.now() - started) / 1000;
    const copyFloorEventsSeconds = await copyFloorSeconds(teamItems(LARGE_TEAM, n).events);
    return {
      n,
      rowsPerTable: sizes.reduce((sum, team) => sum + team.count, 0),
      largeTeamEventsValidationSeconds: validationSeconds,
      largeTeamEventsSeconds: large.events,
      largeTeamGuidesSeconds: large.guides,
      copyFloorEventsSeconds,
      totalSeconds,
    };
  } finally {
    await database.close();
  }
}

export { BENCH_TOKEN };
