/** The wait between retries; the signal, when given, cuts it short. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export const timerSleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve) => {
    // Cleared on abort, so that a stopped loop leaves no timer holding the process open.
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
  });

/**
 * `sleep(ms)` that rejects with `signal.reason` as soon as the signal aborts, even when `sleep`
 * (a caller's own) ignores the signal.
 */
export async function pause(ms: number, sleep: Sleep, signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return sleep(ms);
  signal.throwIfAborted();
  let stop = () => {};
  const aborted = new Promise<never>((_, reject) => {
    stop = () => reject(signal.reason);
    signal.addEventListener("abort", stop, { once: true });
  });
  try {
    await Promise.race([sleep(ms, signal), aborted]);
  } finally {
    signal.removeEventListener("abort", stop);
  }
}
