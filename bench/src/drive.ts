import autocannon from "autocannon";
import type { CpuWindow } from "./cpu";

export interface CaseResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Responses that are neither 2xx nor 304 (in a revalidation case, not 304), plus socket errors and timeouts. */
  bad: number;
  total: number;
  /** CPU of the server process per request (ms), over the measured window. */
  serverCpuMsPerRequest: number;
  /** CPU of PostgreSQL's backends for the bench database per request (ms), over the same window. */
  postgresCpuMsPerRequest: number;
}

export interface DriveOptions {
  connections: number;
  seconds: number;
  /** A revalidation case: a 200 means the tag did not match, so it counts as a failure. */
  onlyNotModified?: boolean;
}

/** Drives one URL at a fixed concurrency for `seconds` with no measurement (a warm-up). */
export async function warmUp(
  url: string,
  headers: Record<string, string>,
  options: { connections: number; seconds: number },
): Promise<void> {
  await autocannon({ url, headers, connections: options.connections, duration: options.seconds });
}

/** One measured run, with the CPU of the server and of PostgreSQL around it. */
export async function drive(
  url: string,
  headers: Record<string, string>,
  options: DriveOptions,
  cpuWindow: () => Promise<() => Promise<CpuWindow>>,
): Promise<CaseResult> {
  const stop = await cpuWindow();
  const result = await autocannon({ url, headers, connections: options.connections, duration: options.seconds });
  const cpu = await stop();
  const failures =
    result["4xx"] +
    result["5xx"] +
    result["1xx"] +
    result.errors +
    result.timeouts +
    (options.onlyNotModified ? result["2xx"] : 0);
  const total = result["2xx"] + result["3xx"] + failures;
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    bad: failures,
    total,
    serverCpuMsPerRequest: total > 0 ? cpu.serverMs / total : 0,
    postgresCpuMsPerRequest: total > 0 ? cpu.postgresMs / total : 0,
  };
}
