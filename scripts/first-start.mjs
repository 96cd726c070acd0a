// Measures the first start as a newcomer meets it: a fresh clone of this checkout, the README's
// first command (`pnpm install --frozen-lockfile && pnpm start`, with the package store as this
// machine has it), until the first 200 of a list request with a demo token; then a second start
// of the same clone. Prints both figures; CI runs it (.ci/run). No bound is asserted: a time
// depends on the machine and its load, so the figure is reported, not judged.
//
//   node scripts/first-start.mjs
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const LIMIT_MS = 600_000;

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function groupAlive(pgid) {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

async function startUntilAnswered(dir, command, label) {
  const port = await freePort();
  const env = { ...process.env, PORT: String(port), HOST: "127.0.0.1" };
  for (const name of ["DATABASE_URL", "DATABASE_READ_URL", "REDIS_URL", "NODE_ENV"]) delete env[name];
  const started = performance.now();
  const child = spawn("sh", ["-c", command], { cwd: dir, env, stdio: "ignore", detached: true });
  let exited = null;
  child.once("exit", (code) => {
    exited = code;
  });
  try {
    while (performance.now() - started < LIMIT_MS) {
      if (exited !== null) throw new Error(`${label}: the command exited with ${exited} before answering`);
      try {
        const response = await fetch(`http://127.0.0.1:${port}/v1/me/community/team/events?per_page=1`, {
          headers: { authorization: "Bearer demo-token-runners" },
        });
        if (response.status === 200) return (performance.now() - started) / 1000;
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error(`${label}: no answer within ${LIMIT_MS / 1000} s`);
  } finally {
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {
      // already gone
    }
    if (exited === null) await new Promise((resolve) => child.once("exit", resolve));
    // The api itself (a grandchild) drains and closes the embedded database after the shell is
    // gone; the next start needs its data directory's lock, so wait until the whole group is gone.
    const deadline = performance.now() + 60_000;
    while (performance.now() < deadline && groupAlive(child.pid)) await new Promise((r) => setTimeout(r, 100));
  }
}

const dir = mkdtempSync(path.join(tmpdir(), "community-first-start-"));
try {
  execFileSync("git", ["clone", "--quiet", root, dir]);
  const first = await startUntilAnswered(dir, "pnpm install --frozen-lockfile && pnpm start", "first start");
  console.log(`first start: ${first.toFixed(1)} s`);
  const second = await startUntilAnswered(dir, "pnpm start", "second start");
  console.log(
    `first start: ${first.toFixed(1)} s from a fresh clone to the first 200 (install, build, embedded database, demo data); second start: ${second.toFixed(1)} s; load average ${(
      await import("node:os")
    )
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
