#!/usr/bin/env node
import { run } from "./run";

// A reader that stopped reading (`| head`, `| jq` that failed) is not the CLI's failure: end
// quietly with status 0, as Unix tools do, rather than with an unhandled EPIPE and a stack.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code !== "EPIPE") throw error;
  process.exit(0);
});

let stop: AbortController | undefined;
/** SIGINT and SIGTERM end a following command cleanly; a second signal has the default effect. */
const interrupted = () => {
  if (stop === undefined) {
    const controller = new AbortController();
    for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => controller.abort());
    stop = controller;
  }
  return stop.signal;
};

run(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env, interrupted }).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
