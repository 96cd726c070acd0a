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
  const started = (): T => {
    if (running === undefined) throw new Error("the suite's app is not running (read it inside a test)");
    return running;
  };
  return new Proxy({} as T, {
    get(_target, key) {
      const target = started();
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
    set(_target, key, value) {
      return Reflect.set(started(), key, value);
    },
  });
}

/** The api on PostgreSQL with the contract fixture and `env` added to the test config, for one describe block. */
export function contractAppForSuite(env: NodeJS.ProcessEnv = {}, timeoutMs?: number) {
  return appForSuite(() => startE2eApp("postgres", contractFixture(), { env }), timeoutMs);
}

/** The same, listening on a loopback port of its own (`port`, `origin`), for tests that need a real socket. */
export function listeningContractAppForSuite(env: NodeJS.ProcessEnv = {}, timeoutMs?: number) {
  return appForSuite(async () => {
    const e2e = await startE2eApp("postgres", contractFixture(), { env });
    const { port, url } = await listenOnLoopback(e2e);
    return Object.assign(e2e, { port, origin: url });
  }, timeoutMs);
}
