import { contractFixture } from "@community/fixtures/testing";
import { listenOnLoopback, startE2eApp } from "./e2e-app";

/**
 * An app for one describe block: `start` runs before its tests (jest's `beforeAll`, with
 * `timeoutMs`) and the app is closed after them (`afterAll`). The returned object stands for the
 * running app inside the tests (`e2e.server`, `e2e.url`, ...); read before the start, it throws.
 */
export function appForSuite<T extends { close(): Promise<void> }>(start: () => Promise<T>, timeoutMs?: number): T {
  let running: T | undefined;
  beforeAll(async () => {
    running = await start();
  }, timeoutMs);
  afterAll(async () => {
    await running?.close();
  });
  return new Proxy({} as T, {
    get(_target, key) {
      if (running === undefined) throw new Error("the suite's app is not running (read it inside a test)");
      const value: unknown = Reflect.get(running, key, running);
      return typeof value === "function" ? value.bind(running) : value;
    },
  });
}

/** The api on PostgreSQL with the contract fixture and `env` added to the test config, for one describe block. */
export function contractAppForSuite(env: NodeJS.ProcessEnv = {}, timeoutMs?: number) {
  return appForSuite(() => startE2eApp("postgres", contractFixture(), { env }), timeoutMs);
}

/** The same, listening on a loopback port of its own (`port`), for tests that write raw requests. */
export function listeningContractAppForSuite(env: NodeJS.ProcessEnv = {}) {
  return appForSuite(async () => {
    const e2e = await startE2eApp("postgres", contractFixture(), { env });
    return Object.assign(e2e, { port: (await listenOnLoopback(e2e)).port });
  });
}
