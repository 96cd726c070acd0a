import autocannon from "autocannon";

export interface CaseResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Responses that are neither the expected status nor any 2xx/304, plus socket errors and timeouts. */
  bad: number;
  total: number;
}

/** Drives one URL at a fixed concurrency: a warm-up that is thrown away, then the measured run. */
export async function drive(
  url: string,
  headers: Record<string, string>,
  options: { connections: number; warmupSeconds: number; seconds: number },
): Promise<CaseResult> {
  const run = (duration: number) => autocannon({ url, headers, connections: options.connections, duration });
  await run(options.warmupSeconds);
  const result = await run(options.seconds);
  const failures = result["4xx"] + result["5xx"] + result["1xx"] + result.errors + result.timeouts;
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    bad: failures,
    total: result["2xx"] + result["3xx"] + failures,
  };
}
