import { Agent, get as httpGet } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import type { ListName } from "./mix-workload";

/**
 * Systems that keep a copy of one team's list current through its changes feed (contract 9.3),
 * either by polling it or by long-polling it (`wait`, contract 10.1), and the freshness they get:
 * the time from a write being sent to the copy holding the response that carries it.
 */

export type WriteOp = "update" | "insert" | "delete";

/** A write as the writer sent it (`sentAt`: performance.now() just before the statement went out). */
export interface WriteSent {
  teamId: string;
  list: ListName;
  id: string;
  op: WriteOp;
  sentAt: number;
}

/** One entry of a changes response, as far as the copies look at it. */
export interface SeenChange {
  op: "upsert" | "delete";
  id: string;
}

export interface FreshnessSummary {
  /** Writes to the followed lists sent up to the cutoff: the ones a copy had time to see. */
  writes: number;
  seen: number;
  /** Writes sent up to the cutoff that no copy saw by the end. */
  missed: number;
  /** Freshness of the seen writes, ms (0 when none). */
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Share of the counted writes seen within the target (missed ones are not), when a target is given. */
  withinTarget: number | null;
}

export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

const listKey = (teamId: string, list: string) => `${teamId} ${list}`;

/**
 * Writes to the followed lists and when a copy first saw each. A response matches a write of the
 * same item when it arrives after the write was sent and its entry is of the same kind (a delete
 * for a delete, an upsert for an insert or an update): a response read before an insert's delete
 * committed still carries the insert, and must not count as seeing the delete.
 */
export class FreshnessLedger {
  private readonly followed: Set<string>;
  private readonly pending = new Map<string, Array<{ op: WriteOp; record: { sentAt: number; seenAt?: number } }>>();
  private readonly records: Array<{ sentAt: number; seenAt?: number }> = [];

  constructor(followed: Iterable<{ teamId: string; list: ListName }>) {
    this.followed = new Set([...followed].map((f) => listKey(f.teamId, f.list)));
  }

  wrote(write: WriteSent): void {
    if (!this.followed.has(listKey(write.teamId, write.list))) return;
    const record: { sentAt: number; seenAt?: number } = { sentAt: write.sentAt };
    this.records.push(record);
    const key = `${listKey(write.teamId, write.list)} ${write.id}`;
    const writes = this.pending.get(key) ?? [];
    writes.push({ op: write.op, record });
    this.pending.set(key, writes);
  }

  /** A copy of `teamId`'s `list` received these changes at `receivedAt`. */
  saw(teamId: string, list: ListName, changes: readonly SeenChange[], receivedAt: number): void {
    for (const change of changes) {
      const key = `${listKey(teamId, list)} ${change.id}`;
      const writes = this.pending.get(key);
      if (writes === undefined) continue;
      const left = writes.filter(({ op, record }) => {
        const sameKind = (op === "delete") === (change.op === "delete");
        if (!sameKind || record.sentAt > receivedAt) return true;
        record.seenAt = receivedAt;
        return false;
      });
      if (left.length === 0) this.pending.delete(key);
      else this.pending.set(key, left);
    }
  }

  /** Over the writes sent up to `cutoff` (performance.now()); `targetMs`: the freshness wanted. */
  summary(cutoff: number, targetMs?: number): FreshnessSummary {
    const counted = this.records.filter((r) => r.sentAt <= cutoff);
    const ages = Float64Array.from(
      counted.filter((r) => r.seenAt !== undefined).map((r) => (r.seenAt as number) - r.sentAt),
    ).sort();
    return {
      writes: counted.length,
      seen: ages.length,
      missed: counted.length - ages.length,
      p50Ms: percentile(ages, 50),
      p99Ms: percentile(ages, 99),
      maxMs: ages.length === 0 ? 0 : (ages[ages.length - 1] as number),
      withinTarget:
        targetMs === undefined || counted.length === 0
          ? null
          : ages.filter((age) => age <= targetMs).length / counted.length,
    };
  }
}

/** How a copy keeps current: a poll every `everyMs`, or a long poll held up to `waitSeconds`. */
export type CopyMode = { kind: "poll"; everyMs: number } | { kind: "long poll"; waitSeconds: number };

/** What a set of copies asked and got over one run. */
export interface CopyCounts {
  /** Requests answered (200 or not). */
  requests: number;
  /** Answered with at least one change. */
  withChanges: number;
  /** Answered with nothing new: a poll that found nothing, a long poll whose wait ran out. */
  empty: number;
  /** Answered with neither 200, or a socket error. */
  failed: number;
  /** Still waiting for their answer when the run stopped (held long polls, mostly): not answered. */
  aborted: number;
  /** Response bodies (uncompressed: the copies send `Accept-Encoding: identity`). */
  bytes: number;
  /** Change entries received. */
  changes: number;
  /** Statuses other than 200, with their counts. */
  otherStatuses: Record<string, number>;
}

export const emptyCounts = (): CopyCounts => ({
  requests: 0,
  withChanges: 0,
  empty: 0,
  failed: 0,
  aborted: 0,
  bytes: 0,
  changes: 0,
  otherStatuses: {},
});

interface ChangesBody {
  changes: SeenChange[];
  meta: { sync: { next: string; has_more: boolean } };
}

const PATHS: Record<ListName, string> = {
  events: "/v1/me/community/team/events/changes",
  guides: "/v1/me/community/team/guides/changes",
};

/**
 * One copy of a team's list, as its owner keeps it: a sync token from the feed, then polls or long
 * polls from that token, each answer applied (here: its entries handed to the ledger) before the
 * next request. The token is kept from one run to the next.
 */
export class SyncCopy {
  private since: string | undefined;

  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
    readonly teamId: string,
    readonly list: ListName,
    readonly mode: CopyMode,
    /** Its keep-alive connections, shared with the copies it runs with (SyncCopies closes them). */
    private readonly agent: Agent = new Agent({ keepAlive: true }),
  ) {}

  /** Takes a token at the feed's current position (the copy is current as of now). */
  async begin(): Promise<void> {
    const response = await this.get(PATHS[this.list], undefined);
    if (response.status !== 200) throw new Error(`GET ${PATHS[this.list]} gave ${response.status} to a sync copy`);
    this.since = (JSON.parse(response.text) as ChangesBody).meta.sync.next;
  }

  /**
   * Keeps the copy current until `signal` aborts: long polls back to back, or a poll (and the
   * pages after it while `has_more`) every `everyMs` from `firstPollAt` (performance.now()).
   */
  async run(ledger: FreshnessLedger, counts: CopyCounts, signal: AbortSignal, firstPollAt = 0): Promise<void> {
    if (this.since === undefined) throw new Error("a sync copy runs after begin()");
    const mode = this.mode;
    if (mode.kind === "long poll") {
      while (!signal.aborted) {
        if ((await this.ask(ledger, counts, signal, mode.waitSeconds)) === "failed") await pause(1000, signal);
      }
      return;
    }
    for (let due = firstPollAt; !signal.aborted; due += mode.everyMs) {
      await pause(due - performance.now(), signal);
      for (;;) {
        const outcome = await this.ask(ledger, counts, signal, 0);
        if (outcome !== "more") break;
      }
    }
  }

  private async ask(
    ledger: FreshnessLedger,
    counts: CopyCounts,
    signal: AbortSignal,
    waitSeconds: number,
  ): Promise<"more" | "done" | "failed" | "aborted"> {
    if (signal.aborted) return "aborted";
    const query = `since=${encodeURIComponent(this.since as string)}&per_page=100${waitSeconds > 0 ? `&wait=${waitSeconds}` : ""}`;
    let response: { status: number; text: string };
    try {
      response = await this.get(PATHS[this.list], query, signal);
    } catch (error) {
      if (signal.aborted) {
        counts.aborted++;
        return "aborted";
      }
      counts.failed++;
      const name = (error as Error).name || "error";
      counts.otherStatuses[name] = (counts.otherStatuses[name] ?? 0) + 1;
      return "failed";
    }
    const receivedAt = performance.now();
    counts.requests++;
    counts.bytes += Buffer.byteLength(response.text);
    if (response.status !== 200) {
      counts.failed++;
      counts.otherStatuses[response.status] = (counts.otherStatuses[response.status] ?? 0) + 1;
      return "failed";
    }
    const body = JSON.parse(response.text) as ChangesBody;
    ledger.saw(this.teamId, this.list, body.changes, receivedAt);
    counts.changes += body.changes.length;
    if (body.changes.length > 0) counts.withChanges++;
    else counts.empty++;
    this.since = body.meta.sync.next;
    return body.meta.sync.has_more ? "more" : "done";
  }

  /**
   * node:http rather than fetch: undici, once a held request is aborted, may leave a new connection
   * open with no request on it, which a server's close() then waits for (the api 10 s, Fastify 60 s).
   */
  private get(
    path: string,
    query: string | undefined,
    signal?: AbortSignal,
  ): Promise<{ status: number; text: string }> {
    const url = `${this.baseUrl}${path}${query === undefined ? "" : `?${query}`}`;
    return new Promise((resolve, reject) => {
      const request = httpGet(
        url,
        {
          agent: this.agent,
          // Identity: the floor and the naive peer never compress, and the bytes compare as sent.
          headers: { authorization: `Bearer ${this.token}`, "accept-encoding": "identity" },
          signal,
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on("data", (chunk: Buffer) => chunks.push(chunk));
          response.on("end", () =>
            resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }),
          );
          response.on("error", reject);
        },
      );
      request.on("error", reject);
    });
  }
}

/** Sleeps `ms` (nothing when not positive), cut short when `signal` aborts. */
async function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return;
  await sleep(ms, undefined, { signal }).catch(() => undefined);
}

/** Copies run together: started at once, stopped at once, counted together, over one set of connections. */
export class SyncCopies {
  readonly copies: readonly SyncCopy[];
  private readonly agent = new Agent({ keepAlive: true });

  /** `make(agent)`: the copies, each given the set's keep-alive agent. */
  constructor(make: (agent: Agent) => SyncCopy[]) {
    this.copies = make(this.agent);
  }

  get followed(): Array<{ teamId: string; list: ListName }> {
    return this.copies.map(({ teamId, list }) => ({ teamId, list }));
  }

  /** Every copy takes its token; a few at a time, as their owners would start. */
  async begin(): Promise<void> {
    for (let i = 0; i < this.copies.length; i += 10) {
      await Promise.all(this.copies.slice(i, i + 10).map((copy) => copy.begin()));
    }
    this.agent.destroy();
  }

  /**
   * Runs every copy until the returned function is called; it aborts what is still in flight and
   * reports. `firstPollAt(i)`: when copy i polls first (performance.now()); polls spread evenly
   * over one interval when not given.
   */
  start(ledger: FreshnessLedger, firstPollAt?: (index: number) => number): () => Promise<CopyCounts> {
    const counts = emptyCounts();
    const controller = new AbortController();
    const began = performance.now();
    const loops = this.copies.map((copy, i) => {
      const at =
        firstPollAt?.(i) ??
        (copy.mode.kind === "poll" ? began + (copy.mode.everyMs * i) / Math.max(1, this.copies.length) : 0);
      return copy.run(ledger, counts, controller.signal, at);
    });
    return async () => {
      controller.abort();
      await Promise.all(loops);
      // No idle connection of the copies stays open into another server's window, or past the run.
      this.agent.destroy();
      return counts;
    };
  }
}
