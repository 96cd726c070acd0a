import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { imageCommand, parseDockerfile, type Stage, stageLineage } from "./dockerfile";

export const REPO_ROOT = path.resolve(__dirname, "../..");

/** The servers the benchmark compares. */
export type ServerName = "api" | "floor" | "naive";
export const SERVER_NAMES: readonly ServerName[] = ["api", "floor", "naive"];
/** Those, and the card floor (card-floor-server.ts), which `cpu-per-request --card` starts beside them. */
export type StartableServer = ServerName | "card";

const SCRIPTS: Record<StartableServer, string> = {
  api: "apps/api/dist/main.js",
  floor: "bench/dist/floor-server.js",
  naive: "bench/dist/naive-server.js",
  card: "bench/dist/card-floor-server.js",
};

export interface RunningServer {
  name: StartableServer;
  pid: number;
  baseUrl: string;
  /** Peak resident set size so far (VmHWM), in MB. */
  peakRssMb(): number;
  /** Current resident set size (VmRSS), in MB. */
  rssMb(): number;
  stop(): Promise<void>;
}

const readImageDockerfile = (): Stage[] => parseDockerfile(readFileSync(path.join(REPO_ROOT, "Dockerfile"), "utf8"));

/**
 * The node flags of the image's CMD (Dockerfile), such as the api's heap budget: the api runs
 * here exactly as the image runs it.
 */
export function imageNodeFlags(stages: readonly Stage[] = readImageDockerfile()): string[] {
  return imageCommand(stages).slice(1, -1);
}

/**
 * The environment of the image's final stage: the `ENV` lines of that stage and of the stages it
 * is built `FROM`, as Docker gives them to the process. Among them glibc's `MALLOC_ARENA_MAX`, a
 * setting read at process start, which every server here gets as the image's api does. Only
 * `NAME=value` pairs without quotes, spaces or variables are read; anything else is refused with
 * its line, so that a new form in the Dockerfile cannot be half-read here.
 */
export function imageEnvironment(stages: readonly Stage[] = readImageDockerfile()): Record<string, string> {
  const last = stages.at(-1);
  if (last === undefined) throw new Error("Dockerfile: no stage");
  const env: Record<string, string> = {};
  for (const stage of stageLineage(stages, last).reverse()) {
    for (const instruction of stage.instructions.filter((i) => i.keyword === "ENV")) {
      for (const pair of instruction.args.split(/\s+/)) {
        const match = /^([A-Za-z_][A-Za-z0-9_]*)=([^"'\s$]*)$/.exec(pair);
        if (match === null) {
          throw new Error(
            `Dockerfile line ${instruction.line}: ENV "${pair}" is not NAME=value (unquoted, no variables)`,
          );
        }
        env[match[1] as string] = match[2] as string;
      }
    }
  }
  return env;
}

/**
 * `BENCH_ENV_<SERVER>`: space-separated NAME=value pairs added to that server's environment, for
 * before/after comparisons of settings read at process start (e.g. `MALLOC_ARENA_MAX=2`).
 */
export function slotEnvironment(server: string, value: string | undefined): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of (value ?? "").split(" ").filter((p) => p !== "")) {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(pair);
    if (match === null) {
      throw new Error(`BENCH_ENV_${server.toUpperCase()}: "${pair}" is not NAME=value (pairs are separated by spaces)`);
    }
    env[match[1] as string] = match[2] as string;
  }
  return env;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

function statusField(pid: number, field: "VmHWM" | "VmRSS"): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

async function waitUntilServing(baseUrl: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${output()}`);
    try {
      // Any HTTP answer (401 without a token) means the server is up.
      await fetch(`${baseUrl}/v1/me/community/team/events`);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  throw new Error(`server did not answer within 60 s:\n${output()}`);
}

/**
 * Starts a server as production would: the compiled JavaScript, the image's node flags and ENV, NODE_ENV=production, and the
 * caller's environment passed through (so rate limits, log levels and the like can be set for a
 * run), with the database, port and pool size the benchmark chooses.
 */
export async function startServer(
  name: StartableServer,
  options: { databaseUrl: string; poolMax: number; nodeArgs?: string[]; env?: Record<string, string> },
): Promise<RunningServer> {
  const port = await freePort();
  // For profiling and before/after comparisons (bench/README.md, "Run it"): another build of a
  // server in a server's slot, and node flags of its own (e.g. --cpu-prof).
  const script = process.env[`BENCH_SCRIPT_${name.toUpperCase()}`] ?? path.join(REPO_ROOT, SCRIPTS[name]);
  const extraArgs = (process.env[`BENCH_NODE_ARGS_${name.toUpperCase()}`] ?? "").split(" ").filter((a) => a !== "");
  // Process settings that no node flag reaches (glibc's MALLOC_*, say), for one server only.
  const extraEnv = slotEnvironment(name, process.env[`BENCH_ENV_${name.toUpperCase()}`]);
  // The server's output goes to a file, not through a pipe into this process: reading a log line
  // per request here would take CPU from the load generator in the api's runs only.
  const logFile = path.join(mkdtempSync(path.join(tmpdir(), `bench-${name}-`)), "output.log");
  const logFd = openSync(logFile, "w");
  const output = () => readFileSync(logFile, "utf8").slice(-20_000);
  // Every server runs with the image's node flags and ENV (heap budget, malloc arenas), so none gets
  // a different V8 or allocator.
  const image = readImageDockerfile();
  const flags = imageNodeFlags(image);
  const imageEnv = imageEnvironment(image);
  const child = spawn(process.execPath, [...flags, ...(options.nodeArgs ?? []), ...extraArgs, script], {
    cwd: REPO_ROOT,
    env: {
      // The limiter stays on, with a budget the load cannot exhaust (it measures throughput, not
      // limits), and every request logs its line as in production; the caller may override both.
      RATE_LIMIT_MAX: "10000000",
      CALENDAR_FEED_RATE_LIMIT_MAX: "1000000",
      LOG_LEVEL: "info",
      // The image's ENV, as `docker run` gives it: the caller's environment may override it.
      ...imageEnv,
      ...process.env,
      ...options.env,
      ...extraEnv,
      NODE_ENV: "production",
      CURSOR_SECRET: "bench-cursor-secret-0123456789abcdef",
      DATABASE_URL: options.databaseUrl,
      DB_POOL_MAX: String(options.poolMax),
      HOST: "127.0.0.1",
      PORT: String(port),
    },
    stdio: ["ignore", logFd, logFd],
  });
  closeSync(logFd);
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitUntilServing(baseUrl, child, output);
  const pid = child.pid as number;
  return {
    name,
    pid,
    baseUrl,
    peakRssMb: () => statusField(pid, "VmHWM"),
    rssMb: () => statusField(pid, "VmRSS"),
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}
