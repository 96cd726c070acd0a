#!/usr/bin/env node
import { run } from "./run";

// A reader that stopped reading (`| head`, `| jq` that failed) is not the CLI's failure: end
// quietly with status 0, as Unix tools do, rather than with an unhandled EPIPE and a stack.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code !== "EPIPE") throw error;
  process.exit(0);
});

run(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env }).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
