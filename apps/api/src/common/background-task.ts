import type { SchedulerRegistry } from "@nestjs/schedule";

/**
 * A job that runs in the background every so often (a sweep, say), one run at a time: a run asked
 * for while one is under way gets that one's result. Its interval is registered with
 * @nestjs/schedule (the `SchedulerRegistry`, under `name`), which clears it before the app's
 * shutdown hooks run; `stop()`, called from one of them, then waits for a run under way, so that
 * none outlives the database it works on. Those two are what stays here: @nestjs/schedule lets
 * interval runs overlap (only cron jobs have `waitForCompletion`) and waits for none at shutdown.
 */
export class BackgroundTask<T> {
  private running: Promise<T> | undefined;

  constructor(
    private readonly scheduler: SchedulerRegistry,
    private readonly name: string,
  ) {}

  /** Every `intervalSeconds` (0: never), `task` unless a run is under way. The timer keeps no process alive. */
  every(intervalSeconds: number, task: () => Promise<T>): void {
    if (intervalSeconds === 0) return;
    const timer = setInterval(() => void this.run(task), intervalSeconds * 1000);
    timer.unref();
    this.scheduler.addInterval(this.name, timer);
  }

  /** `task` now, or the run under way. */
  run(task: () => Promise<T>): Promise<T> {
    this.running ??= task().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** Clears the interval (unless @nestjs/schedule did already) and waits for the run under way. */
  async stop(): Promise<void> {
    if (this.scheduler.doesExist("interval", this.name)) this.scheduler.deleteInterval(this.name);
    await this.running;
  }
}
