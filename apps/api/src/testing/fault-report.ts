/**
 * The one line a fault case prints with its figure (`pnpm test:faults` shows these lines; in a
 * plain `pnpm test` they appear among the console output of the suite).
 */
export function reportFault(caseName: string, figure: string): void {
  console.log(`faults: ${caseName}: ${figure}`);
}

/** Milliseconds from now until `work` settles. */
export async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await work();
  return { ms: performance.now() - start, value };
}
