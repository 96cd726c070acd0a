/**
 * A job that runs in the background every so often (a sweep, say), one run at a time: a run asked
 * for while one is under way gets that one's result. `stop()` clears the timer and waits for a run
 * under way, so that none outlives the database it works on.
 */
export class BackgroundTask<T> {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<T> | undefined;

  /** Every `intervalSeconds` (0: never), `task` unless a run is under way. The timer keeps no process alive. */
  every(intervalSeconds: number, task: () => Promise<T>): void {
    if (intervalSeconds === 0) return;
    this.timer = setInterval(() => void this.run(task), intervalSeconds * 1000);
    this.timer.unref();
  }

  /** `task` now, or the run under way. */
  run(task: () => Promise<T>): Promise<T> {
    this.running ??= task().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
