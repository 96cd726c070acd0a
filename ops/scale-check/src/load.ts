import { sleep } from "./processes";

/** One client request through the balancer and what came back. */
export interface Outcome {
  /** When the request was sent and when its answer (or error) came (ms since epoch). */
  at: number;
  done: number;
  status: number;
  /** A 503 `application/problem+json` response with a Retry-After header. */
  problem503: boolean;
  /** The replica that answered (HAProxy's X-Served-By), or the network error. */
  servedBy: string;
  /** The start of the body of an error response, to explain a failure. */
  detail?: string;
}

export interface Window {
  from: number;
  to: number;
}

export interface Tally {
  requests: number;
  ok: number;
  /** 503 problems with Retry-After inside a deliberate outage window. */
  expected503: number;
  failed: Outcome[];
  byReplica: Record<string, number>;
}

/**
 * Only 200 counts as served; a 503 problem with Retry-After is accepted from a request that was
 * under way at some time inside a window (one sent just before an outage may meet it); anything
 * else failed.
 */
export function tally(outcomes: Outcome[], windows: Window[]): Tally {
  const result: Tally = { requests: outcomes.length, ok: 0, expected503: 0, failed: [], byReplica: {} };
  for (const outcome of outcomes) {
    result.byReplica[outcome.servedBy] = (result.byReplica[outcome.servedBy] ?? 0) + 1;
    if (outcome.status === 200) result.ok++;
    else if (outcome.problem503 && windows.some((w) => outcome.at <= w.to && outcome.done >= w.from)) {
      result.expected503++;
    } else result.failed.push(outcome);
  }
  return result;
}

export async function request(url: string, token: string): Promise<Outcome> {
  const at = Date.now();
  try {
    const response = await fetch(url, {
      headers: { Authorization: `Bearer ${token}`, Accept: "application/json" },
      signal: AbortSignal.timeout(20_000),
    });
    const body = await response.text();
    return {
      detail: response.status === 200 ? undefined : body.slice(0, 300),
      at,
      done: Date.now(),
      status: response.status,
      problem503:
        response.status === 503 &&
        (response.headers.get("content-type") ?? "").startsWith("application/problem+json") &&
        response.headers.get("retry-after") !== null,
      servedBy: response.headers.get("x-served-by") ?? "(no replica)",
    };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    return {
      at,
      done: Date.now(),
      status: 0,
      problem503: false,
      servedBy: `network error ${cause ?? (error as Error).name}`,
    };
  }
}

/**
 * A steady, bounded load: `ratePerSecond` requests a second, spread over `tokens` and both lists,
 * until stop() (or `maxMs`, whichever comes first); at most `maxInFlight` at once, so a stall
 * cannot pile up requests.
 */
export class SteadyLoad {
  readonly outcomes: Outcome[] = [];
  private stopped = false;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly running: Promise<void>;
  skipped = 0;

  constructor(
    private readonly baseUrl: string,
    private readonly tokens: string[],
    private readonly ratePerSecond: number,
    private readonly maxMs: number,
    private readonly maxInFlight = 64,
  ) {
    this.running = this.loop();
  }

  private async loop(): Promise<void> {
    const started = Date.now();
    const interval = 1000 / this.ratePerSecond;
    for (let n = 0; !this.stopped && Date.now() - started < this.maxMs; n++) {
      const due = started + n * interval;
      if (due > Date.now()) await sleep(due - Date.now());
      if (this.inFlight.size >= this.maxInFlight) {
        this.skipped++;
        continue;
      }
      const list = n % 2 === 0 ? "events" : "guides";
      const token = this.tokens[n % this.tokens.length] ?? "";
      const sent = request(`${this.baseUrl}/v1/me/community/team/${list}?per_page=5`, token).then((outcome) => {
        this.outcomes.push(outcome);
        this.inFlight.delete(sent);
      });
      this.inFlight.add(sent);
    }
  }

  /** Stops sending and waits for the requests in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
    await Promise.all(this.inFlight);
  }
}

/** `count` requests with one token, `concurrency` at a time. */
export async function burst(url: string, token: string, count: number, concurrency: number): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next++;
        outcomes.push(await request(url, token));
      }
    }),
  );
  return outcomes;
}

/** Nearest-rank percentile of a non-empty list. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}
