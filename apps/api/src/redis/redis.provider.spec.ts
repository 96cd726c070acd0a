import { createHook } from "node:async_hooks";
import { Logger } from "@nestjs/common";
import { loadConfig } from "../config/config";
import { freePort } from "../testing/free-port";
import { RedisConnection } from "./redis.provider";

/**
 * The timers, sockets and other handles that the Redis client (ioredis or this provider) creates
 * while `run` runs and that still hold the process once it has ended (not closed, not unref'd).
 * Only theirs: jest's own timers come and go in the same process.
 */
async function leftOpenBy(run: () => Promise<void>): Promise<string[]> {
  const created = new Map<number, { type: string; resource: WeakRef<object> }>();
  const hook = createHook({
    init(id, type, _trigger, resource) {
      if (/[/\\]ioredis[/\\]|redis\.provider\.ts/.test(String(new Error().stack)))
        created.set(id, { type, resource: new WeakRef(resource) });
    },
    destroy(id) {
      created.delete(id);
    },
  });
  hook.enable();
  try {
    await run();
    // What was scheduled "at once" has run; unref'd, so that the wait is not among what holds.
    await new Promise((resolve) => setTimeout(resolve, 20).unref());
  } finally {
    hook.disable();
  }
  return [...created.values()].flatMap(({ type, resource }) => {
    const handle = resource.deref() as { hasRef?: () => boolean } | undefined;
    return handle?.hasRef?.() === true ? [type] : [];
  });
}

describe(RedisConnection.name, () => {
  beforeAll(() => {
    // The connection warns that Redis does not answer: expected here.
    jest.spyOn(Logger.prototype, "warn").mockImplementation(() => undefined);
  });

  afterAll(() => {
    jest.restoreAllMocks();
  });

  it("once shut down, holds the process by nothing when Redis never answered", async () => {
    // A port that was just free: the connection is refused.
    const redisUrl = `redis://127.0.0.1:${await freePort()}`;
    const left = await leftOpenBy(async () => {
      const connection = await RedisConnection.open({ ...loadConfig({ REDIS_URL: redisUrl }), redisUrl });
      expect(connection.isAnswering).toBe(false);
      await connection.onApplicationShutdown();
    });
    expect(left).toEqual([]);
  });
});
