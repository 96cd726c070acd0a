import { type ChildProcess, spawn } from "node:child_process";
import net from "node:net";

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
      {
        stdio: "ignore",
      },
    );
    const redis = new PrivateRedis(child, port);
    const deadline = Date.now() + 5_000;
    while (!(await accepts(port))) {
      if (child.exitCode !== null || Date.now() > deadline)
        throw new Error(`redis-server did not start on port ${port}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
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

async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", () => resolve()));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}
