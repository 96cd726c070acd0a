import type { ChangesOptions, ChangesPage, FollowOptions } from "./collection.ts";
import { ApiError, NetworkError, RequestTimeoutError } from "./errors.ts";
import { pause, type Sleep } from "./pause.ts";

export const LIVE_DEFAULTS = {
  /** Seconds a long poll may be held: under the 60 s idle timeout that many load balancers start with. */
  waitSeconds: 30,
  /** The first wait after a failure; each further failure in a row doubles it, up to `retryMaxMs`. */
  retryBaseMs: 1_000,
  retryMaxMs: 30_000,
  /**
   * An empty answer sooner than this (an api or proxy that ignores `wait`, a replica draining) is
   * followed by a pause this long, so that such an answer cannot turn the loop into a busy one.
   */
  minPollIntervalMs: 1_000,
} as const;

/** The contract's bounds of `wait` (10.1); the client refuses others before sending anything. */
export function checkWait(wait: number | undefined): void {
  if (wait === undefined) return;
  if (!Number.isInteger(wait) || wait < 0 || wait > 60) {
    throw new RangeError(`wait must be a whole number of seconds from 0 to 60, got ${String(wait)}`);
  }
}

/** Failures that a live loop waits out: the api or the way to it is down, busy or slow. */
export function isTransient(error: unknown): boolean {
  if (error instanceof NetworkError || error instanceof RequestTimeoutError) return true;
  return error instanceof ApiError && (error.status === 429 || error.status >= 500);
}

/**
 * The waits of a live loop between failed tries: Retry-After when the api sent one (and up to a
 * second more, so that the clients it sent away do not all come back at once), else exponential
 * from `retryBaseMs` to `retryMaxMs` with "equal jitter" (half fixed, half random).
 */
export class Backoff {
  private failures = 0;

  next(error: unknown): number {
    const failures = this.failures++;
    if (error instanceof ApiError && error.retryAfterSeconds !== undefined) {
      return error.retryAfterSeconds * 1000 + Math.floor(Math.random() * 1000);
    }
    const cap = Math.min(LIVE_DEFAULTS.retryMaxMs, LIVE_DEFAULTS.retryBaseMs * 2 ** Math.min(failures, 30));
    return Math.floor(cap / 2 + (Math.random() * cap) / 2);
  }

  reset(): void {
    this.failures = 0;
  }
}

export interface LoopEnvironment {
  sleep: Sleep;
  now: () => number;
}

/** `Collection.follow()` over a collection's `changes()`; see its documentation. */
export async function* follow<T>(
  changes: (options: ChangesOptions) => Promise<ChangesPage<T>>,
  options: FollowOptions,
  environment: LoopEnvironment,
): AsyncGenerator<ChangesPage<T>> {
  const { perPage, signal, onRetry } = options;
  const wait = options.wait ?? LIVE_DEFAULTS.waitSeconds;
  checkWait(wait);
  const backoff = new Backoff();
  let since = options.since;
  for (;;) {
    if (signal?.aborted) return;
    const started = environment.now();
    let page: ChangesPage<T>;
    try {
      page = await changes(since === undefined ? { signal } : { since, perPage, wait, signal });
    } catch (error) {
      if (signal?.aborted) return;
      if (!isTransient(error)) throw error;
      const delay = backoff.next(error);
      onRetry?.(error, delay);
      if (!(await rest(delay))) return;
      continue;
    }
    backoff.reset();
    const polled = since !== undefined;
    since = page.next;
    const quietAtOnce =
      polled &&
      page.changes.length === 0 &&
      !page.hasMore &&
      environment.now() - started < LIVE_DEFAULTS.minPollIntervalMs;
    yield page;
    if (quietAtOnce && !(await rest(LIVE_DEFAULTS.minPollIntervalMs))) return;
  }

  /** False when the signal aborted the wait. */
  async function rest(ms: number): Promise<boolean> {
    try {
      await pause(ms, environment.sleep, signal);
      return true;
    } catch (reason) {
      if (signal?.aborted) return false;
      throw reason;
    }
  }
}
