/** What the per-statement script (prisma-cost.ts) uses: options, CPU per call, medians. */

/** `--name=value` of the command line, a positive integer, or `fallback` when absent. */
export function option(name: string, fallback: number): number {
  const found = process.argv.find((arg) => arg.startsWith(`--${name}=`));
  const value = found === undefined ? fallback : Number(found.slice(name.length + 3));
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer`);
  return value;
}

/** This process's CPU (user + system) per call, in µs, over `calls` calls made one after another. */
export async function cpuPerCall(calls: number, call: () => Promise<unknown>): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < calls; i += 1) await call();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / calls;
}

export const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

/** `median (min-max)`, with `digits` decimals. */
export const spread = (values: number[], digits = 0): string =>
  `${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}-${Math.max(...values).toFixed(digits)})`;
