import { execFile, execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { contractFixture, RUNNERS, TOKENS } from "@community/fixtures/testing";
import request from "supertest";
import { type E2eApp, listenOnLoopback, startE2eApp } from "../testing/e2e-app";

/**
 * A real calendar client that no one here wrote subscribes to a feed: Debian's vdirsyncer reads
 * the feed URL (an `http` storage) into a folder, and khal lists what it got. Every event of the
 * seeded team in the window arrives; after a rename and a cancellation, the next sync shows both.
 * The programs are required (apt-get install vdirsyncer khal; .ci/run installs them): without
 * them this suite fails, it does not skip.
 */
const run = promisify(execFile);
const DAY = 86_400_000;

function requireProgram(name: string): void {
  try {
    execFileSync("sh", ["-c", `command -v ${name}`], { stdio: "ignore" });
  } catch {
    throw new Error(
      `${name} is not installed: apt-get install -y vdirsyncer khal (.ci/run installs them when missing)`,
    );
  }
}

const day = (offset: number) => {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) + offset * DAY);
};
const ymd = (date: Date) => date.toISOString().slice(0, 10);

describe("a real calendar client (vdirsyncer + khal) subscribed to a feed", () => {
  let e2e: E2eApp;
  let base: string;
  let dir: string;

  beforeAll(async () => {
    requireProgram("vdirsyncer");
    requireProgram("khal");
    e2e = await startE2eApp("postgres", contractFixture(), {
      env: { RATE_LIMIT_MAX: "0", CALENDAR_FEED_RATE_LIMIT_MAX: "0" },
    });
    base = (await listenOnLoopback(e2e)).url;
    dir = mkdtempSync(path.join(tmpdir(), "calendar-client-"));
  }, 120_000);

  afterAll(async () => {
    await e2e?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  async function sync(): Promise<void> {
    await run("vdirsyncer", ["-c", path.join(dir, "vdirsyncer.conf"), "sync"], { timeout: 60_000 });
  }

  async function listed(): Promise<string[]> {
    const { stdout } = await run(
      "khal",
      [
        "-c",
        path.join(dir, "khal.conf"),
        "list",
        "--once",
        "--day-format",
        "",
        "--format",
        "{start-date}|{cancelled}|{title}",
        ymd(day(-100)),
        ymd(day(400)),
      ],
      { timeout: 60_000 },
    );
    return stdout
      .split("\n")
      .map((line) => line.trim())
      .filter(Boolean);
  }

  it("gets every event of the team; after a rename and a cancellation, the next sync shows both", async () => {
    const names = ["Track night, 5k; bring water", "Trail run 🏔️", "Long run", "Recovery jog", "Race day"];
    const ids = names.map((_, i) => `ev_client_${i}`);
    await e2e.database.pool.query(
      `INSERT INTO events (id, team_id, account_id, slug, name, duration_seconds, scheduled_at, offer_replay_purchase, price_in_cents, currency)
       SELECT id, $1, 'acc_jane', id, name, 3600, at, false, 0, 'USD'
         FROM unnest($2::text[], $3::text[], $4::timestamptz[]) AS t(id, name, at)`,
      [RUNNERS, ids, names, names.map((_, i) => new Date(day(i * 7 - 20).getTime() + 18 * 3600_000))],
    );
    const { rows } = await e2e.database.pool.query<{ name: string; scheduled_at: Date }>(
      "SELECT name, scheduled_at FROM events WHERE team_id = $1 AND scheduled_at >= $2 ORDER BY scheduled_at",
      [RUNNERS, day(-90)],
    );
    expect(rows.length).toBe(names.length);

    const created = await request(e2e.server)
      .post("/v1/me/community/team/calendar-feeds")
      .set("Authorization", `Bearer ${TOKENS.runner}`)
      .send({});
    expect(created.status).toBe(201);
    const feedUrl = `${base}${new URL(created.body.url).pathname}`;
    writeFileSync(
      path.join(dir, "vdirsyncer.conf"),
      `[general]
status_path = "${dir}/status/"

[pair team]
a = "team_remote"
b = "team_local"
collections = null
conflict_resolution = "a wins"

[storage team_remote]
type = "http"
url = "${feedUrl}"
read_only = true

[storage team_local]
type = "filesystem"
path = "${dir}/cal/"
fileext = ".ics"
`,
    );
    writeFileSync(
      path.join(dir, "khal.conf"),
      `[calendars]
[[team]]
path = ${dir}/cal/
type = calendar
readonly = True

[locale]
local_timezone = UTC
default_timezone = UTC
timeformat = %H:%M
dateformat = %Y-%m-%d
longdateformat = %Y-%m-%d
datetimeformat = %Y-%m-%d %H:%M
longdatetimeformat = %Y-%m-%d %H:%M

[sqlite]
path = ${dir}/khal.db
`,
    );
    // The local folder exists, so that discover has nothing to ask.
    mkdirSync(path.join(dir, "cal"), { recursive: true });
    await run("vdirsyncer", ["-c", path.join(dir, "vdirsyncer.conf"), "discover"], { timeout: 60_000 });
    await sync();
    const first = await listed();
    expect(first).toEqual(rows.map((row) => `${ymd(row.scheduled_at)}||${row.name}`));

    await e2e.database.pool.query("UPDATE events SET name = 'Long run, renamed' WHERE id = 'ev_client_2'");
    await e2e.database.pool.query("UPDATE events SET canceled_at = now() WHERE id = 'ev_client_3'");
    await sync();
    const second = await listed();
    expect(second).toHaveLength(names.length);
    expect(second).toContainEqual(expect.stringMatching(/^\d{4}-\d{2}-\d{2}\|\|Long run, renamed$/));
    expect(second).toContainEqual(expect.stringMatching(/^\d{4}-\d{2}-\d{2}\|CANCELLED ?\|Recovery jog$/));
    expect(second.filter((line) => line.endsWith("|Long run"))).toEqual([]);
  }, 180_000);
});
