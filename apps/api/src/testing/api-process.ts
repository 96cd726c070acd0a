import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { WORKSPACE_ROOT } from "../config/config";

export const COMPILED_MAIN = path.join(WORKSPACE_ROOT, "apps/api/dist/main.js");

/** The compiled server (`node apps/api/dist/main.js`, as production runs it) in a child process. */
export class ApiProcess {
  readonly stdout: string[] = [];
  stderr = "";
  readonly exited: Promise<number | null>;
  private readonly child: ChildProcess;

  constructor(env: NodeJS.ProcessEnv) {
    if (!existsSync(COMPILED_MAIN)) throw new Error(`${COMPILED_MAIN} is missing: run \`pnpm build\` first`);
    this.child = spawn(process.execPath, [COMPILED_MAIN], {
      cwd: WORKSPACE_ROOT,
      // No drain delay unless a test asks for one: SIGTERM then closes at once.
      env: { PATH: process.env.PATH, SHUTDOWN_DRAIN_DELAY_MS: "0", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let pending = "";
    this.child.stdout?.on("data", (chunk: Buffer) => {
      const lines = (pending + chunk.toString()).split("\n");
      pending = lines.pop() ?? "";
      this.stdout.push(...lines);
    });
    this.child.stderr?.on("data", (chunk: Buffer) => {
      this.stderr += chunk.toString();
    });
    this.exited = new Promise((resolve) => this.child.once("exit", (code) => resolve(code)));
  }

  /** The JSON log entries written so far. */
  entries(): Array<Record<string, unknown>> {
    return this.stdout.flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
  }

  /** Resolves with the port once the server logs that it listens. */
  async listening(timeoutMs = 30_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      for (const entry of this.entries()) {
        const match = /^listening on .*:(\d+)$/.exec(String(entry.msg));
        if (match) return Number(match[1]);
      }
      if (this.child.exitCode !== null) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`the api did not start:\n${this.stdout.join("\n")}\n${this.stderr}`);
  }

  kill(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }
}
