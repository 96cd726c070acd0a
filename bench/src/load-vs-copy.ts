import { createDatabase } from "@community/db";
import { createTestDatabase } from "@community/db/testing";
import { type FixtureEvent, type FixtureFile, validateFixture } from "@community/domain";
import { loadFixture } from "@community/fixtures";
import { copyFloorSeconds } from "./copy-floor";
import { baseFixture, LARGE_TEAM, teamItems } from "./dataset";
import { progressBar } from "./progress";
import { runMain } from "./run-main";

/**
 * The seed loader against the COPY floor on the same rows: the shape validation of N events of one
 * team (as `pnpm seed` runs it while reading the file), then `loadFixture` told the file is
 * validated (reference and slug checks, COPY into staging, one merge) into a fresh database, then
 * the same load again (the idempotent no-op), and a plain COPY of the same rows into another
 * fresh copy of the schema. Rounds alternate loader and floor, so both see the same machine.
 * Usage: node bench/dist/load-vs-copy.js [N] [--rounds=R] [--with-batch] (default 1,000,000, 1 round;
 * --with-batch also times the batch path, the loader before COPY).
 */
async function timedLoad(events: readonly FixtureEvent[], path: "copy" | "batch") {
  const database = await createTestDatabase(`bench_loader_${path}`);
  const db = createDatabase({ url: database.url, poolMax: 2, statementTimeoutMs: 30 * 60_000 });
  try {
    await loadFixture(db, baseFixture());
    const fixture: FixtureFile = {
      accounts: [],
      teams: [],
      users: [],
      access_tokens: [],
      events: [...events],
      guides: [],
    };
    const target = path === "copy" ? db : db.prisma;
    let started = performance.now();
    if (!validateFixture(fixture).ok) throw new Error("the generated fixture is invalid");
    const validation = (performance.now() - started) / 1000;
    const bar = progressBar(`loader (${path})`);
    started = performance.now();
    await loadFixture(target, fixture, {
      alreadyValidated: true,
      onProgress: (done, total) => bar.update(done, total),
    });
    bar.finish();
    const load = (performance.now() - started) / 1000;
    started = performance.now();
    await loadFixture(target, fixture, { alreadyValidated: true });
    const reload = (performance.now() - started) / 1000;
    return { validation, load, reload };
  } finally {
    await db.close();
    await database.drop();
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const n = Number((args.find((a) => !a.startsWith("--")) ?? "1000000").replace(/_/g, ""));
  const rounds = Number(args.find((a) => a.startsWith("--rounds="))?.slice("--rounds=".length) ?? 1);
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`N must be a positive integer, got ${n}`);
  if (!Number.isSafeInteger(rounds) || rounds < 1) throw new Error(`--rounds must be a positive integer`);
  const { events } = teamItems(LARGE_TEAM, n);
  for (let round = 1; round <= rounds; round++) {
    const loader = await timedLoad(events, "copy");
    const floor = await copyFloorSeconds(events);
    const batch = args.includes("--with-batch") ? await timedLoad(events, "batch") : undefined;
    process.stdout.write(
      `round ${round}, N=${n.toLocaleString("en-US")} events: validation ${loader.validation.toFixed(1)} s, ` +
        `loader after it ${loader.load.toFixed(1)} s (reload ${loader.reload.toFixed(1)} s), plain COPY ${floor.toFixed(1)} s, ` +
        `loader/COPY ${(loader.load / floor).toFixed(2)}, with validation ${((loader.validation + loader.load) / floor).toFixed(2)}` +
        (batch ? `; batch path ${batch.load.toFixed(1)} s (reload ${batch.reload.toFixed(1)} s)` : "") +
        "\n",
    );
  }
}

runMain("load-vs-copy", main);
