import { randomUUID } from "node:crypto";
import Redis from "ioredis";

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

/** Deletes a suite's keys (all under its own prefix) and closes its connection. */
export async function dropKeysAndQuit(redis: Redis, prefix: string): Promise<void> {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
}

/**
 * For a describe block: two replicas that share one Redis under a key prefix of the suite's own,
 * started before its tests; afterwards closed, and the keys dropped.
 */
export function replicasSharingRedis<App extends { close(): Promise<void> }>(
  start: (env: NodeJS.ProcessEnv) => Promise<App>,
  env: NodeJS.ProcessEnv,
): { readonly prefix: string; readonly redis: Redis; readonly replicas: [App, App] } {
  const prefix = `community-team-test:${randomUUID()}:`;
  let redis: Redis | undefined;
  let replicas: App[] = [];
  beforeAll(async () => {
    redis = new Redis(TEST_REDIS_URL);
    const shared = { ...env, REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: prefix };
    replicas = [await start(shared), await start(shared)];
  }, 120_000);
  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.close()));
    if (redis !== undefined) await dropKeysAndQuit(redis, prefix);
  });
  return {
    prefix,
    get redis() {
      if (redis === undefined) throw new Error("Redis is connected in beforeAll");
      return redis;
    },
    get replicas() {
      return replicas as [App, App];
    },
  };
}
