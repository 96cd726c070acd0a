import { type ChildProcess, spawn } from "node:child_process";
import { freePort } from "../../testing/free-port";

/**
 * A private redis-server on a free loopback port, which a test may freeze (SIGSTOP) and thaw
 * (SIGCONT) without touching the shared Redis.
 */
export class PrivateRedis {
  private constructor(
    private readonly process: ChildProcess,
    readonly port: number,
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async start(): Promise<PrivateRedis> {
    const port = await freePort();
    const child = spawn(
      "redis-server",
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
      { stdio: ["ignore", "pipe", "ignore"] },
    );
    const redis = new PrivateRedis(child, port);
    await ready(child, port);
    return redis;
  }

  freeze(): void {
    this.process.kill("SIGSTOP");
  }

  thaw(): void {
    this.process.kill("SIGCONT");
  }

  async stop(): Promise<void> {
    if (this.process.exitCode !== null) return;
    const exited = new Promise((resolve) => this.process.once("exit", resolve));
    this.process.kill("SIGCONT");
    this.process.kill("SIGTERM");
    await exited;
  }
}

/** Resolves when redis-server logs that it accepts connections; rejects if it exits or takes over 5 s. */
function ready(child: ChildProcess, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const fail = () => reject(new Error(`redis-server did not start on port ${port}`));
    const timer = setTimeout(fail, 5_000);
    let log = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      log += chunk.toString();
      if (!log.includes("Ready to accept connections")) return;
      clearTimeout(timer);
      child.stdout?.removeAllListeners("data").resume();
      resolve();
    });
    child.once("exit", () => {
      clearTimeout(timer);
      fail();
    });
  });
}
