import { createDatabase, hashToken, prismaStatements } from "@community/db";
import { EVENTS_LIST, lookUpToken, TeamListReader } from "@community/db/lists";
import { createTestDatabase } from "@community/db/testing";
import { cpuPerCall, option, spread } from "./cpu-per-call";
import { BENCH_TOKEN, loadBenchData } from "./load";
import { runMain } from "./run-main";

/**
 * What the Prisma client costs per statement of a list request, against the same statement on
 * the same pool (the one beneath Prisma's adapter) through node-postgres: the token lookup (one
 * row) and a page of 100 events, each sent `--statements` times in a row, in interleaved rounds,
 * both as named (prepared) statements on the same connection. Reports this process's CPU per
 * statement (user + system), median and min-max over the rounds: CPU time says what a statement
 * costs even on a machine shared with other work. docs/decisions.md holds the figures.
 *
 *   node bench/dist/prisma-cost.js [--n=1000] [--statements=3000] [--rounds=5]
 */

async function main(): Promise<void> {
  const n = option("n", 1_000);
  const statements = option("statements", 3_000);
  const rounds = option("rounds", 5);
  const testDb = await createTestDatabase("bench_prisma_cost");
  const database = createDatabase({ url: testDb.url, poolMax: 1 });
  try {
    await loadBenchData(testDb.url, n);
    const tokenHash = hashToken(BENCH_TOKEN);
    const now = new Date();
    const events = EVENTS_LIST;
    const viaPrisma = prismaStatements(database.prisma);
    // The api's own way around Prisma for the token lookup: the same pool, the same statement names.
    const viaPg = database.poolStatements;
    const prismaReader = new TeamListReader(viaPrisma, events);
    const pgReader = new TeamListReader(viaPg, events);
    const member = await lookUpToken(viaPrisma, tokenHash, now);
    if (member?.team_id == null) throw new Error("the bench token has no team");
    const teamId = member.team_id;
    const cases = {
      "token lookup": {
        prisma: () => lookUpToken(viaPrisma, tokenHash, now),
        pg: () => lookUpToken(viaPg, tokenHash, now),
      },
      "events page of 100": {
        prisma: () => prismaReader.read({ teamId, offset: 0, limit: 100 }),
        pg: () => pgReader.read({ teamId, offset: 0, limit: 100 }),
      },
    };
    console.log(`Prisma's cost per statement: ${rounds} rounds of ${statements} statements each, N = ${n}`);
    console.log("| statement | node-postgres µs CPU | Prisma µs CPU | Prisma - pg |");
    console.log("|---|---:|---:|---:|");
    for (const [name, calls] of Object.entries(cases)) {
      await cpuPerCall(500, calls.pg);
      await cpuPerCall(500, calls.prisma);
      const pg: number[] = [];
      const prisma: number[] = [];
      for (let round = 0; round < rounds; round += 1) {
        pg.push(await cpuPerCall(statements, calls.pg));
        prisma.push(await cpuPerCall(statements, calls.prisma));
      }
      const extra = prisma.map((value, i) => value - (pg[i] as number));
      console.log(`| ${name} | ${spread(pg)} | ${spread(prisma)} | ${spread(extra)} |`);
    }
  } finally {
    await database.close();
    await testDb.drop();
  }
}

runMain("prisma-cost", main);
