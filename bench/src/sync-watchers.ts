import { Agent, request as httpRequest } from "node:http";
import type { Client } from "pg";
import { mixShape, teamId, userToken } from "./mix-workload";

/**
 * The watchers case of `pnpm bench --sync-push` (issue 44 item 4): N long-polling copies of ONE
 * team's events, all at the same position, held at once (over N/4 access tokens of one member: 4
 * held requests per token at most), then one write to that list. Per round: how soon after the
 * commit each hold is answered, how many are not 200, and how many times the api read the feed
 * for them (list_changes_feed_reads_total{shared="false"}): one reading per position, not one per
 * watcher, is the aim; contract 10.1 promises an answer within 1 s of the commit.
 */
export interface WatchersReport {
  watchers: number;
  tokens: number;
  rounds: WatchersRound[];
}

export interface WatchersRound {
  /** Holds the api counted when the write was sent (the rest were answered before it: not 200). */
  heldAtCommit: number;
  /** ms from the end of the write's COMMIT to each answer's last byte. */
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  notOk: Record<string, number>;
  /** Statements that read the feed for the round's holds, and readings they shared. */
  feedReads: number;
  sharedReads: number;
}

const FEED_READS = /^list_changes_feed_reads_total\{shared="(true|false)"\} (\S+)$/gm;
const HELD = /^list_changes_held_requests (\S+)$/m;

async function metricsText(baseUrl: string, token: string): Promise<string> {
  const response = await fetch(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  return response.text();
}

function feedReads(text: string): { read: number; shared: number } {
  const counts = { read: 0, shared: 0 };
  for (const match of text.matchAll(FEED_READS)) {
    if (match[1] === "true") counts.shared += Number(match[2]);
    else counts.read += Number(match[2]);
  }
  return counts;
}

/** One GET, answered: its status and when its body ended (performance.now()). */
function longPoll(agent: Agent, url: URL, token: string): Promise<{ status: number; at: number }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { agent, headers: { authorization: `Bearer ${token}` } }, (response) => {
      response.resume();
      response.on("end", () => resolve({ status: response.statusCode ?? 0, at: performance.now() }));
      response.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(sorted.length * p) - 1))] ?? 0;

export async function runWatchers(options: {
  baseUrl: string;
  metricsToken: string;
  writer: Client;
  scale: number;
  watchers: number;
  rounds: number;
  waitSeconds: number;
}): Promise<WatchersReport> {
  const { baseUrl, metricsToken, writer, watchers } = options;
  const shape = mixShape(options.scale);
  const team = teamId(0);
  const member = `mu_${shape.firstUser[0] as number}`;
  const tokens = Math.ceil(watchers / 4);
  const tokenOf = (i: number) => `bench-watcher-${i}`;
  await writer.query(
    `INSERT INTO access_tokens (token_hash, user_id, client_id)
     SELECT encode(sha256(convert_to('bench-watcher-' || i, 'UTF8')), 'hex'), $2, 'bench-mix' FROM generate_series(0, $1 - 1) i
     ON CONFLICT DO NOTHING`,
    [tokens, member],
  );
  const agent = new Agent({ keepAlive: true, maxSockets: watchers + 10 });
  const rounds: WatchersRound[] = [];
  try {
    for (let round = 0; round < options.rounds; round++) {
      const start = await fetch(`${baseUrl}/v1/me/community/team/events/changes`, {
        headers: { authorization: `Bearer ${userToken(shape.firstUser[0] as number)}` },
      });
      const since = ((await start.json()) as { meta: { sync: { next: string } } }).meta.sync.next;
      const url = new URL(
        `${baseUrl}/v1/me/community/team/events/changes?since=${encodeURIComponent(since)}&wait=${options.waitSeconds}`,
      );
      // Copies arrive over a moment, not in one millisecond: a burst of N token lookups at once
      // would measure the pool's wait (503 after 2 s), not the wake. Batches of 50, each held first.
      const held = async () => Number(HELD.exec(await metricsText(baseUrl, metricsToken))?.[1] ?? 0);
      const heldBefore = await held();
      const answers: Promise<{ status: number; at: number }>[] = [];
      while (answers.length < watchers) {
        const batch = Math.min(50, watchers - answers.length);
        for (let k = 0; k < batch; k++) {
          const i = answers.length;
          answers.push(longPoll(agent, url, tokenOf(i % tokens)).catch(() => ({ status: -1, at: performance.now() })));
        }
        for (let tries = 0; tries < 100 && (await held()) - heldBefore < answers.length; tries++) {
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
      const heldAtCommit = (await held()) - heldBefore;
      const before = feedReads(await metricsText(baseUrl, metricsToken));
      await writer.query(
        "UPDATE events SET name = name || '.' WHERE id = (SELECT id FROM events WHERE team_id = $1 LIMIT 1)",
        [team],
      );
      const committed = performance.now();
      const results = await Promise.all(answers);
      const after = feedReads(await metricsText(baseUrl, metricsToken));
      // Answers that came before the write (refused on arrival) are counted apart, not timed.
      const latencies = results
        .filter((r) => r.at >= committed)
        .map((r) => r.at - committed)
        .sort((a, b) => a - b);
      const notOk: Record<string, number> = {};
      for (const r of results) {
        const key = `${r.status}${r.at < committed ? " before the write" : ""}`;
        if (r.status !== 200) notOk[key] = (notOk[key] ?? 0) + 1;
      }
      rounds.push({
        heldAtCommit,
        p50Ms: percentile(latencies, 0.5),
        p99Ms: percentile(latencies, 0.99),
        maxMs: latencies.at(-1) ?? 0,
        notOk,
        feedReads: after.read - before.read,
        sharedReads: after.shared - before.shared,
      });
    }
  } finally {
    agent.destroy();
  }
  return { watchers, tokens, rounds };
}

/** The watchers case as a few lines of markdown. */
export function watchersMarkdown(report: WatchersReport, waitSeconds: number): string {
  const lines = [
    `Watchers: ${report.watchers} long polls (wait=${waitSeconds}) of one team's events at one position, over ${report.tokens} ` +
      "tokens of one member, held at once; then one UPDATE of that list. Per round: ms from the COMMIT to each answer, " +
      "answers that were not 200, and the api's feed statements for them (and readings shared).",
    "",
    "| round | held at the commit | p50 ms | p99 ms | max ms | not 200 | feed statements | shared readings |",
    "|---:|---:|---:|---:|---:|---|---:|---:|",
  ];
  report.rounds.forEach((r, i) => {
    lines.push(
      `| ${i + 1} | ${r.heldAtCommit} | ${r.p50Ms.toFixed(0)} | ${r.p99Ms.toFixed(0)} | ${r.maxMs.toFixed(0)} | ${JSON.stringify(r.notOk)} | ${r.feedReads} | ${r.sharedReads} |`,
    );
  });
  return `${lines.join("\n")}\n`;
}
