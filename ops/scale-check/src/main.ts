import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { Client } from "pg";
import { probeFixture, revokedTokenFixture, SCALE_CLIENT, SCALE_CREDENTIALS, teamFixture } from "./fixtures";
import { type Balancer, startHaproxy } from "./haproxy";
import { burst, type Outcome, percentile, SteadyLoad, tally, type Window } from "./load";
import {
  findExecutable,
  freePort,
  run,
  runAsync,
  type Service,
  Supervisor,
  serviceUser,
  sleep,
  waitFor,
} from "./processes";
import {
  type Binaries,
  type PgBouncer,
  type Postgres,
  postgresUrl,
  restartPgBouncer,
  startPgBouncer,
  startPrimary,
  startRedis,
  startReplica,
} from "./services";
import { revokeRefreshToken, signIn } from "./sign-in";
import { noticeStates, subscribe, WebhookReceiver } from "./webhooks";

const WORKSPACE_ROOT = path.resolve(__dirname, "../../..");
const API_MAIN = path.join(WORKSPACE_ROOT, "apps/api/dist/main.js");
const SEED_CLI = path.join(WORKSPACE_ROOT, "apps/seed/dist/cli.js");

const USAGE = `Usage: pnpm scale:check [--short] [--no-read-replica]

Starts on loopback a PostgreSQL primary and streaming replica, PgBouncer (transaction mode) in
front of each, Redis, three api replicas and HAProxy; then, under a steady load through HAProxy,
SIGTERMs one replica and SIGKILLs another, stops the primary's PgBouncer for a while, checks one
rate-limit budget across replicas and times replication, to the replica and to the api's list; a
webhook receiver is subscribed, and the replica that is sending its notices is killed with one in
flight. Prints one summary line; exits 1 if a client request failed outside the deliberate
outage, a process crashed or a notice was lost. See docs/scale-check.md.

  --short            about 10 s of load instead of 30 s (CI)
  --no-read-replica  do not set DATABASE_READ_URL (the api then reads lists from the primary)
`;

const REPLICAS = ["r1", "r2", "r3"];
const CURSOR_SECRET = randomBytes(32).toString("base64");
/** In production mode the api serves /metrics only with its token. */
const METRICS_TOKEN = randomBytes(24).toString("hex");
const LOAD_TOKENS = Array.from({ length: 16 }, (_, i) => `scale-load-token-${String(i + 1).padStart(2, "0")}`);
const BUDGET_TOKEN = "scale-budget-token";
/** Tokens of the polls that wait for each replication probe in the api's list (rotated: each has the budget). */
const LAG_TOKENS = ["scale-lag-token-1", "scale-lag-token-2", "scale-lag-token-3", "scale-lag-token-4"];
/** Served by two replicas, then revoked: the next request through either must be refused. */
const REVOKED_TOKEN = "scale-revoked-token";
/** The shared rate-limit budget per token, and how many requests past it the check sends. */
const BUDGET = 300;
const OVER_BUDGET = 25;
/** Readiness answers 503 this long after SIGTERM; more than HAProxy needs to take a replica out. */
const DRAIN_DELAY_MS = 2_000;

const began = Date.now();
const progress = (message: string) =>
  process.stderr.write(`  scale-check ${((Date.now() - began) / 1000).toFixed(1).padStart(5)} s: ${message}\n`);

function requireBinaries(): Binaries {
  const pgBin =
    process.env.PG_BIN ??
    ["/usr/lib/postgresql/17/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/15/bin"].find((dir) =>
      existsSync(path.join(dir, "pg_basebackup")),
    ) ??
    path.dirname(findExecutable("pg_basebackup") ?? "/missing/pg_basebackup");
  const found = {
    pgBin,
    pgbouncer: findExecutable("pgbouncer"),
    haproxy: findExecutable("haproxy"),
    redis: findExecutable("redis-server"),
  };
  const missing = [
    ...["initdb", "postgres", "pg_basebackup"]
      .filter((name) => !existsSync(path.join(pgBin, name)))
      .map((n) => `${n} (PostgreSQL server, set PG_BIN to its bin directory)`),
    ...(["pgbouncer", "haproxy", "redis"] as const)
      .filter((name) => found[name] === undefined)
      .map((n) => (n === "redis" ? "redis-server" : n)),
  ];
  if (missing.length > 0) {
    throw new SetupError(
      `missing programs: ${missing.join(", ")}.\nOn Debian/Ubuntu: apt-get install -y haproxy pgbouncer postgresql redis-server`,
    );
  }
  for (const file of [API_MAIN, SEED_CLI]) {
    if (!existsSync(file)) throw new SetupError(`${file} is missing: run \`pnpm build\` first`);
  }
  return found as Binaries;
}

class SetupError extends Error {}

interface ApiReplica {
  name: string;
  port: number;
  service: Service;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      short: { type: "boolean" },
      "read-replica": { type: "boolean", default: true },
      help: { type: "boolean", short: "h" },
    },
    allowNegative: true,
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const short = values.short === true;
  const plan = short
    ? { loadMs: 10_000, rate: 30, outageMs: 2_000, writes: 4 }
    : { loadMs: 30_000, rate: 40, outageMs: 5_000, writes: 10 };
  const bin = requireBinaries();
  const runAs = serviceUser();

  const workDir = mkdtempSync(path.join(tmpdir(), "scale-check-"));
  // PostgreSQL and PgBouncer run as `postgres` when we are root: they must reach their directories.
  chmodSync(workDir, 0o755);
  const supervisor = new Supervisor(workDir);
  let cleaned = false;
  const cleanUp = async () => {
    if (cleaned) return;
    cleaned = true;
    await supervisor.stopAll();
    rmSync(workDir, { recursive: true, force: true });
  };
  const interrupted = (signal: NodeJS.Signals) => {
    progress(`${signal}: stopping everything`);
    void cleanUp().then(() => process.exit(130));
  };
  process.once("SIGINT", interrupted);
  process.once("SIGTERM", interrupted);
  const hardLimit = setTimeout(
    () => {
      progress("took longer than its time limit: stopping everything");
      void cleanUp().then(() => process.exit(1));
    },
    short ? 180_000 : 300_000,
  );

  try {
    return await check(bin, runAs, workDir, supervisor, plan, values["read-replica"] === true);
  } catch (error) {
    if (error instanceof SetupError) throw error;
    const logs = readdirSync(workDir).filter((file) => file.endsWith(".log"));
    for (const log of logs)
      process.stderr.write(`--- ${log} (last lines)\n${supervisor.tail(log.replace(/\.log$/, ""))}\n`);
    throw error;
  } finally {
    clearTimeout(hardLimit);
    await cleanUp();
  }
}

async function check(
  bin: Binaries,
  runAs: ReturnType<typeof serviceUser>,
  workDir: string,
  supervisor: Supervisor,
  plan: { loadMs: number; rate: number; outageMs: number; writes: number },
  readReplica: boolean,
): Promise<number> {
  const problems: string[] = [];

  progress("starting PostgreSQL primary and streaming replica, PgBouncer, Redis");
  const primary = await startPrimary(bin, supervisor, workDir, runAs);
  const replica = await startReplica(bin, supervisor, workDir, runAs, primary);
  const primaryBouncer = await startPgBouncer(bin, supervisor, workDir, runAs, "pgbouncer-primary", primary);
  const replicaBouncer = await startPgBouncer(bin, supervisor, workDir, runAs, "pgbouncer-replica", replica);
  const redis = await startRedis(bin, supervisor);
  const timeout = await serverSetting(primaryBouncer, "statement_timeout");
  if (timeout !== "5s") problems.push(`statement_timeout through PgBouncer is ${timeout}, expected 5s (connect_query)`);

  progress(
    "migrating (pnpm db:migrate, at the primary) and loading the demo and the check's data (seed CLI, through PgBouncer)",
  );
  run("pnpm", ["db:migrate"], {
    cwd: WORKSPACE_ROOT,
    env: { ...process.env, DATABASE_URL: postgresUrl(primary.port) },
  });
  const seedEnv = { ...process.env, DATABASE_URL: postgresUrl(primaryBouncer.port) };
  run(process.execPath, [SEED_CLI, "--demo"], { env: seedEnv });
  const teamFile = path.join(workDir, "scale-team.json");
  writeFileSync(teamFile, JSON.stringify(teamFixture([...LOAD_TOKENS, ...LAG_TOKENS, REVOKED_TOKEN], BUDGET_TOKEN)));
  run(process.execPath, [SEED_CLI, "--file", teamFile], { env: seedEnv });

  progress("starting three api replicas and HAProxy");
  const balancerPort = await freePort();
  const apiPorts = await Promise.all(REPLICAS.map(() => freePort()));
  const apiEnv = (port: number, delivery: boolean): NodeJS.ProcessEnv => ({
    PATH: process.env.PATH,
    NODE_ENV: "production",
    // One secret for all replicas: a cursor or sync token from one is read by the others.
    CURSOR_SECRET,
    METRICS_TOKEN,
    HOST: "127.0.0.1",
    PORT: `${port}`,
    PUBLIC_URL: `http://127.0.0.1:${balancerPort}`,
    DATABASE_URL: postgresUrl(primaryBouncer.port),
    // PgBouncer in transaction mode cannot hold a LISTEN: the long poll's notices come straight from the primary.
    DATABASE_LISTEN_URL: postgresUrl(primary.port),
    // PgBouncer 1.18 in transaction mode cannot keep a connection's named statements.
    DATABASE_PREPARED_STATEMENTS: "false",
    ...readReplicaHook(readReplica, replicaBouncer),
    DB_POOL_MAX: "5",
    REDIS_URL: `redis://127.0.0.1:${redis.port}`,
    RATE_LIMIT_MAX: `${BUDGET}`,
    // One window for the whole run: the budget is counted once, never reset midway.
    RATE_LIMIT_WINDOW_SECONDS: "3600",
    TRUST_PROXY: "loopback",
    SHUTDOWN_DRAIN_DELAY_MS: `${DRAIN_DELAY_MS}`,
    SHUTDOWN_TIMEOUT_MS: "5000",
    RETRY_AFTER_SECONDS: "2",
    LOG_LEVEL: "warn",
    // The receiver is on loopback. Only the replicas named send notices: r2 until it is killed,
    // then r1 (restarted after its SIGTERM), which must pick up what r2 left in flight.
    WEBHOOK_ALLOWED_HOSTS: "127.0.0.1",
    WEBHOOK_DELIVERY: `${delivery}`,
    WEBHOOK_SWEEP_INTERVAL_SECONDS: "2",
    WEBHOOK_STALE_LOCK_SECONDS: "16",
  });
  const startApi = (name: string, port: number, delivery = name === "r2"): ApiReplica => ({
    name,
    port,
    service: supervisor.start(name, process.execPath, [API_MAIN], { env: apiEnv(port, delivery) }),
  });
  const replicas = REPLICAS.map((name, i) => startApi(name, apiPorts[i] ?? 0));
  await Promise.all(replicas.map((api) => waitForReady(api)));
  const balancer = await startHaproxy(
    bin.haproxy,
    supervisor,
    workDir,
    replicas.map(({ name, port }) => ({ name, port })),
    balancerPort,
  );
  await waitFor("HAProxy to see every replica up", async () => allUp(balancer, REPLICAS), 15_000);
  const base = `http://127.0.0.1:${balancer.port}`;

  // 1. One rate-limit budget, counted in Redis, whichever replica answers.
  progress(`rate limit: ${BUDGET + OVER_BUDGET} requests with one token, budget ${BUDGET}`);
  const budget = tally(
    await burst(`${base}/v1/me/community/team/events?per_page=1`, BUDGET_TOKEN, BUDGET + OVER_BUDGET, 12),
    [],
  );
  const limited = budget.failed.filter((outcome) => outcome.status === 429).length;
  if (budget.ok !== BUDGET || limited !== OVER_BUDGET) {
    problems.push(`rate limit: ${budget.ok} served and ${limited} limited, expected ${BUDGET} and ${OVER_BUDGET}`);
  }
  const budgetSpread = REPLICAS.map((name) => budget.byReplica[name] ?? 0);
  if (budgetSpread.some((count) => count === 0))
    problems.push(`rate limit: not every replica answered (${budgetSpread.join("/")})`);

  // 2. A revocation is seen by every replica on its very next request, even with the page hot in
  // each replica's page cache and a streaming replica behind the list reads.
  // Twice: an opaque token revoked at the primary (seed CLI), and a grant of the built-in
  // authorization server revoked through r1's revocation endpoint (RFC 7009).
  progress("revocation: a token served by r1 and r2, revoked, then asked for through r2 and r1 directly");
  const revocation =
    (await checkRevocation(replicas, path.join(workDir, "scale-revoked.json"), seedEnv)) ??
    (await checkGrantRevocation(replicas, base));
  if (revocation !== undefined) problems.push(`revocation: ${revocation}`);

  // A webhook subscription of the team: its notices are sent by r2, and held at the receiver from
  // now on, so that r2 has one in flight when it is killed below.
  const receiver = await WebhookReceiver.start();
  const subscription = await subscribe(base, LOAD_TOKENS[0] as string, receiver);
  receiver.holding = true;

  // 3. Steady load through the balancer for the rest of the check.
  progress(`steady load: ${plan.rate} requests/s through HAProxy`);
  const loadStarted = Date.now();
  const load = new SteadyLoad(base, LOAD_TOKENS, plan.rate, plan.loadMs + 120_000);
  // Before the disruptions below, so that the api's answers time replication, not an outage.
  progress(`replication: ${plan.writes} writes at the primary, each awaited on the replica and in the api's list`);
  const { lags, apiLags } = await measureReplication(primary, replica, plan.writes, base);

  // 4. SIGTERM one replica (drains), SIGKILL another (only the balancer's retry saves its requests).
  progress("SIGTERM r1, SIGKILL r2 (with a webhook notice in flight), then start both again");
  await waitFor(
    "r2 to send a webhook notice",
    async () => receiver.received.some((n) => n.type === "events.changed"),
    20_000,
  );
  const inFlight = receiver.received.find((n) => n.type === "events.changed")?.id;
  const [r1, r2] = replicas as [ApiReplica, ApiReplica, ApiReplica];
  const termAt = Date.now();
  supervisor.signal(r1.service, "SIGTERM");
  await sleep(300);
  supervisor.signal(r2.service, "SIGKILL");
  let outOfBalancerMs: number | undefined;
  while (outOfBalancerMs === undefined && r1.service.child.exitCode === null && Date.now() - termAt < 15_000) {
    if ((await balancer.states()).r1?.startsWith("DOWN")) outOfBalancerMs = Date.now() - termAt;
    else await sleep(50);
  }
  const r1Exit = await r1.service.exited;
  const exitedMs = Date.now() - termAt;
  if (r1Exit !== 0) problems.push(`r1 exited ${r1Exit} after SIGTERM, expected 0`);
  if (outOfBalancerMs === undefined) problems.push("HAProxy had not taken r1 out before it closed");
  await r2.service.exited;
  receiver.release();
  replicas[0] = startApi("r1", r1.port, true);
  replicas[1] = startApi("r2", r2.port, false);
  await waitFor("HAProxy to see the restarted replicas up", async () => allUp(balancer, REPLICAS), 60_000);

  // 5. The primary's PgBouncer goes away for a while: 503 problems with Retry-After, then recovery.
  progress(`stopping the primary's PgBouncer for ${plan.outageMs / 1000} s`);
  const outage: Window = { from: Date.now(), to: Number.POSITIVE_INFINITY };
  await supervisor.stop(primaryBouncer.service, "SIGTERM");
  await sleep(plan.outageMs);
  await restartPgBouncer(bin, supervisor, primaryBouncer, runAs);
  const restartedAt = Date.now();
  await Promise.all(replicas.map((api) => waitForReady(api, 30_000)));
  const recoveredMs = Date.now() - restartedAt;
  // A request sent just before readiness returned may still meet the outage.
  outage.to = Date.now() + 1_000;

  const remaining = plan.loadMs - (Date.now() - loadStarted);
  if (remaining > 0) await sleep(remaining);
  await load.stop();
  await checkReplicaBouncer(replicaBouncer);

  // Nothing lost: every notice of the subscription delivered, the one r2 had in flight sent again
  // by r1 with its webhook-id (once r2's lock is older than WEBHOOK_STALE_LOCK_SECONDS).
  let notices: Record<string, number> = {};
  const noticesSettled = await waitFor(
    "every webhook notice to be delivered",
    async () => {
      notices = await noticeStates(postgresUrl(primary.port), subscription);
      const resent = receiver.received.filter((n) => n.id === inFlight).length >= 2;
      return resent && Object.keys(notices).every((state) => state === "delivered");
    },
    60_000,
  ).then(
    () => true,
    () => false,
  );
  await receiver.close();
  const notLost = Object.entries(notices)
    .filter(([state]) => state !== "delivered")
    .reduce((sum, [, n]) => sum + n, 0);
  if (!noticesSettled) {
    problems.push(
      `webhooks: notices ${JSON.stringify(notices)}, the one in flight at r2's SIGKILL received ${receiver.received.filter((n) => n.id === inFlight).length} time(s)`,
    );
  }
  const fallbacks = readReplica ? await replicaFallbacks(replicas) : undefined;

  const steady = tally(load.outcomes, [outage]);
  const crashed = supervisor.crashed().map((service) => service.name);
  if (steady.failed.length > 0) {
    problems.push(`${steady.failed.length} client request(s) failed: ${describeFailures(steady.failed)}`);
    for (const outcome of steady.failed.slice(0, 5)) {
      const when = (outcome.at - outage.from) / 1000;
      progress(
        `failed at ${when.toFixed(2)} s from the outage's start (it lasted until ${((outage.to - outage.from) / 1000).toFixed(2)} s): ${outcome.status} ${outcome.detail ?? outcome.servedBy}`,
      );
    }
  }
  if (steady.expected503 === 0) problems.push("no 503 problem with Retry-After during the database outage");
  if (crashed.length > 0) problems.push(`crashed: ${crashed.join(", ")}`);

  const requests = budget.requests + steady.requests;
  const failed = steady.failed.length + budget.failed.filter((o) => o.status !== 429).length;
  const lagText =
    lags.length > 0
      ? `replica lag p50 ${percentile(lags, 50)} ms / p99 ${percentile(lags, 99)} ms (${lags.length} writes), ` +
        `write to api list p50 ${percentile(apiLags, 50)} ms / p99 ${percentile(apiLags, 99)} ms ` +
        (fallbacks === undefined ? "(lists from the primary)" : `(lists from the replica, ${fallbacks} fallback reads)`)
      : "replica lag not measured";
  const seconds = (ms: number | undefined) => (ms === undefined ? "?" : (ms / 1000).toFixed(1));
  process.stdout.write(
    `scale: ${requests} requests, ${failed} failed, ${limited} rate-limited (budget ${BUDGET} shared by ${REPLICAS.length} replicas: ${budgetSpread.join("/")}), ` +
      `revocation ${revocation === undefined ? "(an opaque token at the primary, an OAuth grant through r1) refused on the next request through r2 and r1" : "NOT seen"}, ` +
      `${steady.expected503} × 503 + Retry-After in a ${seconds(plan.outageMs)} s PgBouncer outage (recovered ${seconds(recoveredMs)} s after), ` +
      `${lagText}, drain: out of HAProxy ${seconds(outOfBalancerMs)} s / exited ${seconds(exitedMs)} s after SIGTERM, ` +
      `webhooks: ${notices.delivered ?? 0} notices delivered, ${notLost} lost, the one in flight at r2's SIGKILL ${noticesSettled ? "sent again by r1 with its webhook-id" : "NOT sent again"}, ` +
      `${crashed.length} crashed` +
      (load.skipped > 0 ? `, ${load.skipped} not sent (too many in flight)` : "") +
      "\n",
  );
  for (const problem of problems) process.stderr.write(`scale-check FAILED: ${problem}\n`);
  return problems.length === 0 ? 0 : 1;
}

/**
 * Serves REVOKED_TOKEN's first page twice through r1 and r2 directly (the second a page-cache
 * hit), revokes it as an operator does (the seed CLI loads the token with `revoked: true`, at the
 * primary), then asks through r2 and r1 once each: both must answer 401. Returns what went wrong.
 */
async function checkRevocation(
  replicas: ApiReplica[],
  file: string,
  seedEnv: NodeJS.ProcessEnv,
): Promise<string | undefined> {
  const [r1, r2] = replicas as [ApiReplica, ApiReplica];
  const status = async (api: ApiReplica) =>
    (
      await fetch(`http://127.0.0.1:${api.port}/v1/me/community/team/events?per_page=5`, {
        headers: { authorization: `Bearer ${REVOKED_TOKEN}` },
      })
    ).status;
  for (const api of [r1, r2, r1, r2]) {
    const before = await status(api);
    if (before !== 200) return `${api.name} answered ${before} before the revocation, expected 200`;
  }
  writeFileSync(file, JSON.stringify(revokedTokenFixture(REVOKED_TOKEN)));
  run(process.execPath, [SEED_CLI, "--file", file], { env: seedEnv });
  for (const api of [r2, r1]) {
    const after = await status(api);
    if (after !== 401) return `${api.name} answered ${after} on the first request after the revocation, expected 401`;
  }
  return undefined;
}

/**
 * A user signs in at the built-in authorization server through the balancer (code flow with
 * PKCE), reads a page with the JWT access token through r1 and r2 (twice each: the second from
 * the page cache), then revokes the refresh token at r1's revocation endpoint. That destroys the
 * grant, and the api checks the grant of a built-in token on the primary with every request: the
 * very next request through r2, then through r1, must be refused. Undefined when it is.
 */
async function checkGrantRevocation(replicas: ApiReplica[], base: string): Promise<string | undefined> {
  const [r1, r2] = replicas as [ApiReplica, ApiReplica];
  let tokens: { accessToken: string; refreshToken: string };
  try {
    tokens = await signIn(base, SCALE_CLIENT, SCALE_CREDENTIALS);
  } catch (error) {
    return (error as Error).message;
  }
  const status = async (api: ApiReplica) =>
    (
      await fetch(`http://127.0.0.1:${api.port}/v1/me/community/team/events?per_page=5`, {
        headers: { authorization: `Bearer ${tokens.accessToken}` },
      })
    ).status;
  for (const api of [r1, r2, r1, r2]) {
    const before = await status(api);
    if (before !== 200)
      return `${api.name} answered ${before} to an OAuth access token before the revocation, expected 200`;
  }
  const revoked = await revokeRefreshToken(`http://127.0.0.1:${r1.port}`, SCALE_CLIENT.clientId, tokens.refreshToken);
  if (revoked !== 200) return `r1's revocation endpoint answered ${revoked}, expected 200`;
  for (const api of [r2, r1]) {
    const after = await status(api);
    if (after !== 401) {
      return `${api.name} answered ${after} to an OAuth access token on the first request after its grant was revoked through r1, expected 401`;
    }
  }
  return undefined;
}

/**
 * Reads from the replica (the default; --no-read-replica turns it off): the api replicas read
 * list pages through the replica's PgBouncer, so a write shows in a list once it has replicated.
 */
function readReplicaHook(enabled: boolean, replicaBouncer: PgBouncer): NodeJS.ProcessEnv {
  return enabled ? { DATABASE_READ_URL: postgresUrl(replicaBouncer.port) } : {};
}

/**
 * List reads the api replicas sent to the primary because the replica could not serve them
 * (`db_replica_fallback_reads_total`, summed); the metric exists only when DATABASE_READ_URL is set.
 */
async function replicaFallbacks(replicas: ApiReplica[]): Promise<number> {
  let total = 0;
  for (const api of replicas) {
    const metrics = await (
      await fetch(`http://127.0.0.1:${api.port}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } })
    ).text();
    const match = metrics.match(/^db_replica_fallback_reads_total (\d+)$/m);
    if (match === null)
      throw new Error(`${api.name} does not read from a replica (no db_replica_fallback_reads_total)`);
    total += Number(match[1]);
  }
  return total;
}

/** Polls the api's events list through the balancer until `id` heads it; the time it was first seen. */
async function seenInApiList(base: string, id: string, deadline: number): Promise<number | undefined> {
  for (let poll = 0; Date.now() < deadline; poll++) {
    const token = LAG_TOKENS[poll % LAG_TOKENS.length] ?? "";
    const response = await fetch(`${base}/v1/me/community/team/events?per_page=1`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    if (response.status !== 200) throw new Error(`polling the api's list for ${id}: ${response.status}`);
    const body = (await response.json()) as { guides: { id: string }[] };
    if (body.guides[0]?.id === id) return Date.now();
    await sleep(5);
  }
  return undefined;
}

async function waitForReady(api: ApiReplica, timeoutMs = 60_000): Promise<void> {
  await waitFor(
    `${api.name} to be ready on port ${api.port}`,
    async () => {
      if (api.service.child.exitCode !== null) throw new Error(`${api.name} exited`);
      return (await fetch(`http://127.0.0.1:${api.port}/health/ready`)).status === 200;
    },
    timeoutMs,
    100,
  );
}

async function allUp(balancer: Balancer, names: string[]): Promise<boolean> {
  const states = await balancer.states();
  return names.every((name) => states[name] === "UP");
}

/**
 * Writes single events through the seed loader at the primary, one after another, and polls the
 * replica directly and the api's list through the balancer until each appears: each lag is the
 * time from the commit (its commit timestamp, same clock) to the first poll that sees the event.
 */
async function measureReplication(
  primary: Postgres,
  replica: Postgres,
  writes: number,
  base: string,
): Promise<{ lags: number[]; apiLags: number[] }> {
  const onPrimary = new Client({ connectionString: postgresUrl(primary.port) });
  const onReplica = new Client({ connectionString: postgresUrl(replica.port) });
  await onPrimary.connect();
  await onReplica.connect();
  const dir = mkdtempSync(path.join(tmpdir(), "scale-check-writes-"));
  const lags: number[] = [];
  const apiLags: number[] = [];
  try {
    for (let i = 0; i < writes; i++) {
      const id = `scale_probe_${Date.now().toString(36)}_${i}`;
      const file = path.join(dir, `${id}.json`);
      writeFileSync(file, JSON.stringify(probeFixture(id, i)));
      let seenAt: number | undefined;
      const polling = (async () => {
        const deadline = Date.now() + 60_000;
        while (seenAt === undefined && Date.now() < deadline) {
          const { rowCount } = await onReplica.query("SELECT 1 FROM events WHERE id = $1", [id]);
          if (rowCount === 1) seenAt = Date.now();
          else await sleep(2);
        }
      })();
      const inApi = seenInApiList(base, id, Date.now() + 60_000);
      await runAsync(process.execPath, [SEED_CLI, "--file", file], {
        env: { ...process.env, DATABASE_URL: postgresUrl(primary.port) },
      });
      await polling;
      const apiSeenAt = await inApi;
      const { rows } = await onPrimary.query<{ ms: number }>(
        "SELECT extract(epoch FROM pg_xact_commit_timestamp(xmin)) * 1000 AS ms FROM events WHERE id = $1",
        [id],
      );
      const committed = Number(rows[0]?.ms);
      if (seenAt === undefined) throw new Error(`write ${id} never reached the replica`);
      if (apiSeenAt === undefined) throw new Error(`write ${id} never showed in the api's events list`);
      lags.push(Math.max(0, Math.round(seenAt - committed)));
      apiLags.push(Math.max(0, Math.round(apiSeenAt - committed)));
      await sleep(300);
    }
  } finally {
    await onPrimary.end();
    await onReplica.end();
    rmSync(dir, { recursive: true, force: true });
  }
  return { lags, apiLags };
}

/** A server setting as a client of `bouncer` sees it. */
async function serverSetting(bouncer: PgBouncer, name: string): Promise<string | undefined> {
  const client = new Client({ connectionString: postgresUrl(bouncer.port) });
  await client.connect();
  try {
    const { rows } = await client.query<{ value: string }>("SELECT current_setting($1) AS value", [name]);
    return rows[0]?.value;
  } finally {
    await client.end();
  }
}

/** The replica's PgBouncer serves the replicated data: the path DATABASE_READ_URL will take. */
async function checkReplicaBouncer(bouncer: PgBouncer): Promise<void> {
  const client = new Client({ connectionString: postgresUrl(bouncer.port) });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM events WHERE id LIKE 'scale_probe_%'",
    );
    if ((rows[0]?.n ?? 0) === 0) throw new Error("the replica's PgBouncer does not show the replicated writes");
  } finally {
    await client.end();
  }
}

function describeFailures(failed: Outcome[]): string {
  const kinds = new Map<string, number>();
  for (const outcome of failed) {
    const kind = `${outcome.status === 0 ? "no response" : outcome.status} from ${outcome.servedBy}`;
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  }
  return [...kinds].map(([kind, count]) => `${count} × ${kind}`).join(", ");
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`scale-check: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(error instanceof SetupError ? 2 : 1);
  },
);
