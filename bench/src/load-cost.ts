import { createDatabase } from "@community/db";
import { createTestDatabase } from "@community/db/testing";
import { loadFixture } from "@community/fixtures";
import { baseFixture, LARGE_TEAM, teamItems } from "./dataset";
import { progressBar } from "./progress";
import { runMain } from "./run-main";

/**
 * What the team_list_stats triggers cost on a bulk load: loads N events and N guides of one team
 * through the seed loader into two fresh databases, one with the triggers disabled, and prints both
 * times. Usage: node bench/dist/load-cost.js [N] (default 1,000,000).
 */
async function timedLoad(n: number, triggers: boolean): Promise<number> {
  const database = await createTestDatabase(`bench_cost_${triggers ? "on" : "off"}`);
  const db = createDatabase({ url: database.url, poolMax: 2, statementTimeoutMs: 30 * 60_000 });
  try {
    await loadFixture(db.prisma, baseFixture());
    if (!triggers) {
      await db.pool.query("ALTER TABLE events DISABLE TRIGGER USER");
      await db.pool.query("ALTER TABLE guides DISABLE TRIGGER USER");
    }
    const items = teamItems(LARGE_TEAM, n);
    const bar = progressBar(`triggers ${triggers ? "on " : "off"}`);
    const started = performance.now();
    await loadFixture(
      db.prisma,
      { accounts: [], teams: [], users: [], access_tokens: [], ...items },
      { onProgress: (done, total) => bar.update(done, total) },
    );
    bar.finish();
    return (performance.now() - started) / 1000;
  } finally {
    await db.close();
    await database.drop();
  }
}

async function main(): Promise<void> {
  const n = Number((process.argv[2] ?? "1000000").replace(/_/g, ""));
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`N must be a positive integer, got ${process.argv[2]}`);
  const off = await timedLoad(n, false);
  const on = await timedLoad(n, true);
  process.stdout.write(
    `N=${n}: ${n} events + ${n} guides of one team: triggers off ${off.toFixed(1)} s, on ${on.toFixed(1)} s ` +
      `(${(((on - off) / off) * 100).toFixed(0)}%)\n`,
  );
}

runMain("load-cost", main);
