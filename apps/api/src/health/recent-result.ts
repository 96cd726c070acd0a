/**
 * One computation's result, handed to every caller while it runs and for `maxAgeMs` after it
 * began, so a flood of callers costs one computation per interval. Failures are kept as briefly
 * as successes.
 */
export class RecentResult<T> {
  private last: { startedAt: number; settled: boolean; value: Promise<T> } | undefined;

  constructor(
    private readonly maxAgeMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  get(compute: () => Promise<T>): Promise<T> {
    const last = this.last;
    if (last !== undefined && (!last.settled || this.now() - last.startedAt < this.maxAgeMs)) return last.value;
    const current = { startedAt: this.now(), settled: false, value: compute() };
    const settle = () => {
      current.settled = true;
    };
    current.value.then(settle, settle);
    this.last = current;
    return current.value;
  }
}
