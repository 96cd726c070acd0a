/** Runs a bench script's `main`; a failure is written with its stack and ends the process with 1. */
export function runMain(name: string, main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    process.stderr.write(
      `${name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  });
}
