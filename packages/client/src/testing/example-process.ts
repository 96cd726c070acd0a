import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";

/** One of the package's examples run as a reader runs it (`node <example>` in `cwd`), its output kept. */
export class ExampleProcess {
  stdout = "";
  stderr = "";
  private readonly child: ChildProcessWithoutNullStreams;

  constructor(example: string, cwd: string, env: NodeJS.ProcessEnv) {
    // @community/client resolves to the package's own build from inside it (its "exports").
    this.child = spawn(process.execPath, [example], { cwd, env });
    this.child.stdout.on("data", (chunk: Buffer) => {
      this.stdout += chunk.toString();
    });
    this.child.stderr.on("data", (chunk: Buffer) => {
      this.stderr += chunk.toString();
    });
  }

  get exited(): boolean {
    return this.child.exitCode !== null;
  }

  /** Sends `signal` unless it has exited already; resolves with its exit code. */
  async stop(signal: NodeJS.Signals): Promise<number | null> {
    if (this.exited) return this.child.exitCode;
    const exit = new Promise<number | null>((resolve) => this.child.once("exit", resolve));
    this.child.kill(signal);
    return exit;
  }
}
