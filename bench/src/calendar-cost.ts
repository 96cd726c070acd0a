import type { Pool } from "pg";
import { startCpuWindow } from "./cpu";
import { type CaseResult, drive, warmUp } from "./drive";
import { BENCH_TOKEN } from "./load";
import { type ServerCaseReport, type Spread, spreadOf, summarize } from "./report";
import type { RunningServer } from "./servers";

/** The calendar cases (contract 11.2): the api against the floor, which answers the same from plain SQL. */
export interface CalendarCaseReport {
  name: string;
  events: number;
  servers: { api: ServerCaseReport; floor: ServerCaseReport };
  throughputRatio: Spread;
}

const FEED_EVENTS = 5_000;

/**
 * A feed of the bench's large team holding 5,000 events (as many future events are added first, so
 * that the window holds at least that many), then two cases, each server in turn within each
 * round: revalidations with the current ETag (304), and the full feed (200, identity).
 */
export async function measureCalendar(
  servers: { api: RunningServer; floor: RunningServer },
  monitor: Pool,
  settings: { connections: number; seconds: number; warmupSeconds: number; rounds: number },
): Promise<CalendarCaseReport[]> {
  const { rows } = await monitor.query<{ team_id: string }>(
    `SELECT u.team_id FROM access_tokens t JOIN users u ON u.id = t.user_id WHERE t.token_hash = encode(sha256(convert_to($1, 'UTF8')), 'hex')`,
    [BENCH_TOKEN],
  );
  const teamId = rows[0]?.team_id;
  if (teamId === undefined) throw new Error("the bench token has no team");
  const account = (
    await monitor.query<{ account_id: string }>("SELECT account_id FROM events WHERE team_id = $1 LIMIT 1", [teamId])
  ).rows[0]?.account_id;
  await monitor.query(
    `INSERT INTO events (id, team_id, account_id, slug, name, description, duration_seconds, scheduled_at,
       offer_replay_purchase, price_in_cents, currency)
     SELECT 'ev_cal_bench_' || i, $1, $2, 'cal-bench-' || i, 'Calendar bench, event ' || i,
            'Meet at the river; bring water, shoes & a friend.', 3600, now() + make_interval(hours => i), false, 0, 'USD'
       FROM generate_series(1, $3::int) AS i
     ON CONFLICT DO NOTHING`,
    [teamId, account, FEED_EVENTS],
  );
  const created = await fetch(`${servers.api.baseUrl}/v1/me/community/team/calendar-feeds`, {
    method: "POST",
    headers: { authorization: `Bearer ${BENCH_TOKEN}`, "content-type": "application/json" },
    body: "{}",
  });
  if (created.status !== 201) throw new Error(`creating the bench's calendar feed gave ${created.status}`);
  const feedPath = new URL(((await created.json()) as { url: string }).url).pathname;

  const etagOf = async (server: RunningServer) => {
    const response = await fetch(`${server.baseUrl}${feedPath}`, { headers: { "accept-encoding": "identity" } });
    const text = await response.text();
    const count = text.match(/BEGIN:VEVENT/g)?.length ?? 0;
    if (response.status !== 200 || count !== FEED_EVENTS) {
      throw new Error(`${server.baseUrl}${feedPath} gave ${response.status} with ${count} events`);
    }
    return response.headers.get("etag") ?? "";
  };
  const tags = { api: await etagOf(servers.api), floor: await etagOf(servers.floor) };

  const reports: CalendarCaseReport[] = [];
  for (const revalidation of [true, false]) {
    const request = (name: "api" | "floor") => ({
      url: `${servers[name].baseUrl}${feedPath}`,
      headers: revalidation ? { "if-none-match": tags[name] } : ({} as Record<string, string>),
    });
    for (const name of ["api", "floor"] as const) {
      await warmUp(request(name).url, request(name).headers, {
        connections: settings.connections,
        seconds: settings.warmupSeconds,
      });
    }
    const rounds: Record<"api" | "floor", CaseResult[]> = { api: [], floor: [] };
    for (let round = 0; round < settings.rounds; round++) {
      const order = round % 2 === 0 ? (["api", "floor"] as const) : (["floor", "api"] as const);
      for (const name of order) {
        const { url, headers } = request(name);
        rounds[name].push(
          await drive(url, headers, { ...settings, onlyNotModified: revalidation }, () =>
            startCpuWindow(servers[name].pid, monitor),
          ),
        );
      }
    }
    reports.push({
      name: revalidation ? "calendar feed, 304 revalidation" : `calendar feed, full (${FEED_EVENTS} events)`,
      events: FEED_EVENTS,
      servers: { api: summarize(rounds.api), floor: summarize(rounds.floor) },
      throughputRatio: spreadOf(
        rounds.api.map((r, i) => r.requestsPerSecond / (rounds.floor[i]?.requestsPerSecond ?? Number.NaN)),
      ),
    });
  }
  return reports;
}
