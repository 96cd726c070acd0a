import autocannon from "autocannon";
import { type Intent, IntentStream, type ListName, type MixShape, type RequestKind, userToken } from "./mix-workload";

const LIST_PATH: Record<ListName, string> = {
  events: "/v1/me/community/team/events",
  guides: "/v1/me/community/team/guides",
};

/** What one user's client remembers between requests, as a real client would. */
interface UserState {
  /** The last page-mode URL it read, with the tag it got (none from a server without tags). */
  lastPage?: { path: string; etag: string | undefined };
  /** A cursor walk under way, per list: the next page's cursor. */
  walks?: Partial<Record<ListName, { perPage: number; cursor: string }>>;
  /** The sync token it last got, per list. */
  since?: Partial<Record<ListName, string>>;
}

/** Requests of one kind and what came back. */
export interface KindCounts {
  requests: number;
  ok: number;
  notModified: number;
  /** Neither 2xx nor 304. */
  failed: number;
  /** Latency of this kind's responses (ms, timed from when the request was built, just before it is written). */
  p50Ms: number;
  p99Ms: number;
}

export interface MixDriveResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Responses received. */
  responses: number;
  ok: number;
  notModified: number;
  /** Responses neither 2xx nor 304, plus socket errors and timeouts. */
  failed: number;
  /** Response bytes (headers and bodies as sent, compressed or not) per response. */
  bytesPerResponse: number;
  /** Requests by the kind they were sent as (a revalidation with nothing to revalidate is a first page). */
  byKind: Record<RequestKind, KindCounts>;
  /** Status codes seen other than 200 and 304, with their counts. */
  otherStatuses: Record<string, number>;
}

interface Sent {
  intent: Intent;
  kind: RequestKind;
  path: string;
  pageMode: boolean;
  /** performance.now() when the request was built. */
  at?: number;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

/** The value of `"key":"..."` nearest the end of a JSON body (meta comes last), or null for `"key":null`. */
function lastStringField(body: string, key: string): string | null | undefined {
  const marker = `"${key}":`;
  const at = body.lastIndexOf(marker);
  if (at < 0) return undefined;
  const start = at + marker.length;
  if (body.startsWith("null", start)) return null;
  if (body[start] !== '"') return undefined;
  const end = body.indexOf('"', start + 1);
  return end < 0 ? undefined : body.slice(start + 1, end);
}

const headerValue = (headers: Record<string, string | string[]>, name: string): string | undefined => {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
};

/**
 * The clients of one server: every user's state (tags, walks, sync tokens) kept from one round to
 * the next. A request stream is turned into HTTP requests here, each with the user's own token.
 *
 * Cursor pages and changes polls never ask for compression: the load generator reads
 * `next_cursor` and `meta.sync.next` from their bodies without decompressing them. Page-mode
 * requests of a user whose client compresses send `Accept-Encoding: gzip, br`.
 */
export class MixClients {
  private readonly users = new Map<number, UserState>();

  constructor(
    private readonly baseUrl: string,
    private readonly shape: MixShape,
    private readonly compressedShare: number,
  ) {}

  private state(user: number): UserState {
    let state = this.users.get(user);
    if (state === undefined) {
      state = {};
      this.users.set(user, state);
    }
    return state;
  }

  /** The request an intent becomes, given what its user's client remembers. */
  private request(intent: Intent): Sent & { headers: Record<string, string> } {
    const state = this.state(intent.user);
    const base = LIST_PATH[intent.list];
    const headers: Record<string, string> = { authorization: `Bearer ${userToken(intent.user)}` };
    const page = (path: string, kind: RequestKind) => {
      if (intent.compressed) headers["accept-encoding"] = "gzip, br";
      return { intent, kind, path, pageMode: true, headers };
    };
    switch (intent.kind) {
      case "revalidation": {
        const last = state.lastPage;
        if (last === undefined) return page(`${base}?page=1&per_page=${intent.perPage}`, "first page");
        if (last.etag !== undefined) headers["if-none-match"] = last.etag;
        return page(last.path, "revalidation");
      }
      case "cursor page": {
        const walk = state.walks?.[intent.list];
        const path =
          walk === undefined
            ? `${base}?cursor=&per_page=${intent.perPage}`
            : `${base}?cursor=${encodeURIComponent(walk.cursor)}&per_page=${walk.perPage}`;
        return { intent, kind: intent.kind, path, pageMode: false, headers };
      }
      case "changes poll": {
        const since = state.since?.[intent.list];
        const path = since === undefined ? `${base}/changes` : `${base}/changes?since=${encodeURIComponent(since)}`;
        return { intent, kind: intent.kind, path, pageMode: false, headers };
      }
      case "filtered page":
        return page(`${base}?page=1&per_page=${intent.perPage}${intent.filter}`, intent.kind);
      default:
        return page(`${base}?page=${intent.page}&per_page=${intent.perPage}`, intent.kind);
    }
  }

  /** Remembers what a real client would keep from a response. */
  private remember(sent: Sent, status: number, body: string, headers: Record<string, string | string[]>): void {
    if (status !== 200) return;
    const state = this.state(sent.intent.user);
    if (sent.pageMode) {
      state.lastPage = { path: sent.path, etag: headerValue(headers, "etag") };
    } else if (sent.kind === "cursor page") {
      const next = lastStringField(body, "next_cursor");
      state.walks ??= {};
      if (typeof next === "string") state.walks[sent.intent.list] = { perPage: sent.intent.perPage, cursor: next };
      else delete state.walks[sent.intent.list];
    } else if (sent.kind === "changes poll") {
      const next = lastStringField(body, "next");
      if (typeof next === "string") {
        state.since ??= {};
        state.since[sent.intent.list] = next;
      }
    }
  }

  /**
   * Drives the server for `seconds` at `connections` concurrent connections with the requests of
   * the stream seeded by `seed`, in order (each connection takes the next one when its previous
   * response is in).
   */
  async drive(seed: string, options: { connections: number; seconds: number }): Promise<MixDriveResult> {
    const stream = new IntentStream(this.shape, seed, this.compressedShare);
    const kinds: RequestKind[] = [
      "first page",
      "deeper page",
      "revalidation",
      "cursor page",
      "filtered page",
      "changes poll",
    ];
    const byKind = Object.fromEntries(
      kinds.map((k) => [k, { requests: 0, ok: 0, notModified: 0, failed: 0, p50Ms: 0, p99Ms: 0 }]),
    ) as Record<RequestKind, KindCounts>;
    const latencies = Object.fromEntries(kinds.map((k) => [k, [] as number[]])) as Record<RequestKind, number[]>;
    const otherStatuses: Record<string, number> = {};
    const result = await autocannon({
      url: this.baseUrl,
      connections: options.connections,
      duration: options.seconds,
      requests: [
        {
          method: "GET",
          // autocannon builds each connection's next request when its previous response is in.
          setupRequest: (request, context) => {
            const sent = { ...this.request(stream.next()), at: performance.now() };
            (context as { sent?: Sent }).sent = sent;
            request.path = sent.path;
            request.headers = sent.headers;
            return request;
          },
          onResponse: (status, body, context, headers) => {
            const sent = (context as { sent?: Sent }).sent;
            if (sent === undefined) return;
            const counts = byKind[sent.kind];
            if (sent.at !== undefined) latencies[sent.kind].push(performance.now() - sent.at);
            counts.requests++;
            if (status >= 200 && status < 300) counts.ok++;
            else if (status === 304) counts.notModified++;
            else counts.failed++;
            if (status !== 200 && status !== 304) otherStatuses[status] = (otherStatuses[status] ?? 0) + 1;
            this.remember(sent, status, body, headers as Record<string, string | string[]>);
          },
        },
      ],
    });
    for (const kind of kinds) {
      const sorted = Float64Array.from(latencies[kind]).sort();
      byKind[kind].p50Ms = percentile(sorted, 50);
      byKind[kind].p99Ms = percentile(sorted, 99);
    }
    const ok = Object.values(byKind).reduce((sum, k) => sum + k.ok, 0);
    const notModified = Object.values(byKind).reduce((sum, k) => sum + k.notModified, 0);
    const failedResponses = Object.values(byKind).reduce((sum, k) => sum + k.failed, 0);
    const responses = ok + notModified + failedResponses;
    return {
      requestsPerSecond: result.requests.average,
      p50Ms: result.latency.p50,
      p99Ms: result.latency.p99,
      responses,
      ok,
      notModified,
      failed: failedResponses + result.errors + result.timeouts,
      bytesPerResponse: responses > 0 ? result.throughput.total / responses : 0,
      byKind,
      otherStatuses,
    };
  }
}
