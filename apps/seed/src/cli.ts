#!/usr/bin/env node
import { main } from "./run-cli";

// Thin wrapper: everything testable lives in run-cli.ts. exitCode (not exit()) lets stdout drain.
main(process.argv.slice(2), process.env, {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
