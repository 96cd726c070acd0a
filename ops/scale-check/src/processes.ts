import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { accessSync, constants, createWriteStream, readFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The uid/gid to run PostgreSQL and PgBouncer as: both refuse to run as root. */
export interface RunAs {
  uid: number;
  gid: number;
}

/** When this process is root: the `postgres` user's ids; otherwise run as ourselves. */
export function serviceUser(): RunAs | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const line = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((entry) => entry.startsWith("postgres:"));
  const [, , uid, gid] = line?.split(":") ?? [];
  if (uid === undefined || gid === undefined) {
    throw new Error("running as root, but there is no `postgres` user to run PostgreSQL and PgBouncer as");
  }
  return { uid: Number(uid), gid: Number(gid) };
}

/** The absolute path of an executable: `name` on PATH or in the extra directories, else undefined. */
export function findExecutable(name: string, extraDirs: string[] = []): string | undefined {
  const dirs = [...(process.env.PATH ?? "").split(path.delimiter), "/usr/sbin", "/usr/local/sbin", ...extraDirs];
  for (const dir of dirs.filter((d) => d !== "")) {
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** A free loopback port (the kernel's pick; nothing else here binds ports between the pick and the use). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface Service {
  name: string;
  child: ChildProcess;
  /** Resolves with the exit code (or the signal's name) when the process ends. */
  exited: Promise<number | string>;
  /** True once the harness itself asked it to stop. */
  stopping: boolean;
  /** The signal of an orderly stop (PostgreSQL: SIGINT, its fast shutdown). */
  stopSignal: NodeJS.Signals;
}

/**
 * Starts every background process of the check, writes each one's output to a log file, and
 * stops all of them (SIGTERM, then SIGKILL after a grace period) however the check ends.
 */
export class Supervisor {
  private readonly services: Service[] = [];

  constructor(private readonly logDir: string) {}

  start(
    name: string,
    command: string,
    args: string[],
    options: { env?: NodeJS.ProcessEnv; runAs?: RunAs; stopSignal?: NodeJS.Signals } = {},
  ) {
    const log = createWriteStream(path.join(this.logDir, `${name}.log`), { flags: "a" });
    const child = spawn(command, args, {
      env: options.env ?? process.env,
      stdio: ["ignore", "pipe", "pipe"],
      uid: options.runAs?.uid,
      gid: options.runAs?.gid,
    });
    child.stdout?.pipe(log);
    child.stderr?.pipe(log);
    const service: Service = {
      name,
      child,
      stopping: false,
      stopSignal: options.stopSignal ?? "SIGTERM",
      exited: new Promise((resolve) => child.once("exit", (code, signal) => resolve(code ?? signal ?? "unknown"))),
    };
    child.once("error", (error) => log.write(`failed to start: ${error.message}\n`));
    this.services.push(service);
    return service;
  }

  /** Sends `signal` and marks the process as deliberately stopped. */
  signal(service: Service, signal: NodeJS.Signals): void {
    service.stopping = true;
    service.child.kill(signal);
  }

  async stop(service: Service, signal: NodeJS.Signals = service.stopSignal, graceMs = 5_000): Promise<number | string> {
    if (service.child.exitCode !== null || service.child.signalCode !== null) return service.exited;
    this.signal(service, signal);
    const outcome = await Promise.race([service.exited, sleep(graceMs).then(() => "timeout" as const)]);
    if (outcome !== "timeout") return outcome;
    service.child.kill("SIGKILL");
    return service.exited;
  }

  /** Processes that ended without being asked to. */
  crashed(): Service[] {
    return this.services.filter(
      (service) => !service.stopping && (service.child.exitCode !== null || service.child.signalCode !== null),
    );
  }

  /** Stops everything still running, in reverse start order (clients before the servers they use). */
  async stopAll(): Promise<void> {
    for (const service of [...this.services].reverse()) {
      await this.stop(service, service.stopSignal, 3_000);
    }
  }

  /** The last lines of a service's log, for error messages. */
  tail(name: string, lines = 15): string {
    try {
      return readFileSync(path.join(this.logDir, `${name}.log`), "utf8")
        .trimEnd()
        .split("\n")
        .slice(-lines)
        .join("\n");
    } catch {
      return "(no log)";
    }
  }
}

/** Runs a command to completion; throws with its output if it fails. */
export function run(
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; runAs?: RunAs; cwd?: string } = {},
) {
  try {
    return execFileSync(command, args, {
      env: options.env ?? process.env,
      cwd: options.cwd,
      uid: options.runAs?.uid,
      gid: options.runAs?.gid,
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 120_000,
    }).toString();
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: Buffer; stderr?: Buffer };
    throw new Error(
      `${path.basename(command)} ${args.join(" ")} failed:\n${stdout?.toString() ?? ""}${stderr?.toString() ?? ""}`,
    );
  }
}

/** Polls `check` every `intervalMs` until it returns true; throws after `timeoutMs`. */
export async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number, intervalMs = 100) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await sleep(intervalMs);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

/** Runs a command to completion without blocking the event loop (the load keeps going meanwhile). */
export function runAsync(command: string, args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}) {
  return new Promise<string>((resolve, reject) => {
    const child = spawn(command, args, { env: options.env ?? process.env, cwd: options.cwd, stdio: "pipe" });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.once("error", reject);
    child.once("exit", (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(output);
      else reject(new Error(`${path.basename(command)} ${args.join(" ")} exited ${code}:\n${output}`));
    });
  });
}
