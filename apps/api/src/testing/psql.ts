import { spawn } from "node:child_process";

/**
 * Runs `script` through psql's standard input: "another system's SQL", not the api's nor its pool.
 * Each statement commits on its own.
 */
export function psql(url: string, script: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("psql", [url, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-f", "-"], {
      stdio: ["pipe", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`psql exited ${code}: ${stderr}`))));
    child.stdin.end(script);
  });
}

/** The INSERT of a plain event of `team` (a free hour on 2026-03-05) whose id, slug and name are `id`. */
export const insertEventSql = (id: string, team: string) =>
  `INSERT INTO events (id, team_id, account_id, slug, name, duration_seconds, scheduled_at, offer_replay_purchase,
     price_in_cents, currency)
   VALUES ('${id}', '${team}', 'acc_jane', '${id}', '${id}', 60, '2026-03-05T18:30:00Z', false, 0, 'USD');`;

/** The INSERT of a free guide of `team` whose id, slug and name are `id`. */
export const insertGuideSql = (id: string, team: string) =>
  `INSERT INTO guides (id, team_id, account_id, slug, name, price_in_cents, currency)
   VALUES ('${id}', '${team}', 'acc_jane', '${id}', '${id}', 0, 'USD');`;
