import { SchedulerRegistry } from "@nestjs/schedule";
import { BackgroundTask } from "./background-task";

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe("BackgroundTask", () => {
  it("runs one task at a time: a run asked for meanwhile gets the one under way", async () => {
    const task = new BackgroundTask<number>(new SchedulerRegistry(), "test");
    const gate = deferred<number>();
    const started: string[] = [];
    const first = task.run(() => {
      started.push("first");
      return gate.promise;
    });
    const second = task.run(async () => {
      started.push("second");
      return 2;
    });
    gate.resolve(1);
    expect(await Promise.all([first, second])).toEqual([1, 1]);
    expect(started).toEqual(["first"]);
    // Once it ended, the next run is a new one.
    expect(await task.run(async () => 3)).toBe(3);
  });

  it("stops only after the run under way ended, even a failed one", async () => {
    const task = new BackgroundTask<void>(new SchedulerRegistry(), "test");
    const gate = deferred<void>();
    const events: string[] = [];
    const failing = task.run(async () => {
      await gate.promise;
      events.push("run ended");
      throw new Error("boom");
    });
    failing.catch(() => undefined);
    const stopped = task.stop().then(
      () => events.push("stopped"),
      () => events.push("stopped with the run's error"),
    );
    gate.resolve();
    await stopped;
    expect(events).toEqual(["run ended", "stopped with the run's error"]);
  });

  it("never schedules with an interval of 0", async () => {
    const task = new BackgroundTask<void>(new SchedulerRegistry(), "test");
    const spy = jest.spyOn(global, "setInterval");
    task.every(0, async () => undefined);
    expect(spy).not.toHaveBeenCalled();
    spy.mockRestore();
    await task.stop();
  });

  it("registers its interval with @nestjs/schedule, and clears it when stopped", async () => {
    const scheduler = new SchedulerRegistry();
    const task = new BackgroundTask<void>(scheduler, "sweep");
    task.every(60, async () => undefined);
    expect(scheduler.getIntervals()).toEqual(["sweep"]);
    await task.stop();
    expect(scheduler.getIntervals()).toEqual([]);
  });
});
