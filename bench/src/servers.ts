import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";

export const REPO_ROOT = path.resolve(__dirname, "../..");

export interface RunningServer {
  name: "api" | "floor";
  pid: number;
  baseUrl: string;
  /** Peak resident set size so far (VmHWM), in MB. */
  peakRssMb(): number;
  /** Current resident set size (VmRSS), in MB. */
  rssMb(): number;
  stop(): Promise<void>;
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
 * Starts a server as production would: the compiled JavaScript, NODE_ENV=production, and the
 * caller's environment passed through (so rate limits, log levels and the like can be set for a
 * run), with the database, port and pool size the benchmark chooses.
 */
export async function startServer(
  name: "api" | "floor",
  options: { databaseUrl: string; poolMax: number; nodeArgs?: string[] },
): Promise<RunningServer> {
  const port = await freePort();
  const script =
    name === "api" ? path.join(REPO_ROOT, "apps/api/dist/main.js") : path.join(REPO_ROOT, "bench/dist/floor-server.js");
  let output = "";
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), script], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      NODE_ENV: "production",
      DATABASE_URL: options.databaseUrl,
      DB_POOL_MAX: String(options.poolMax),
      HOST: "127.0.0.1",
      PORT: String(port),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitUntilServing(baseUrl, child, () => output);
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
