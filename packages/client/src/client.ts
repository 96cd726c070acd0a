import type { Event, Guide, ListEnvelope, Pagination, Problem } from "@community/domain";
import LinkHeader from "http-link-header";
import { apiError, NetworkError, UnexpectedResponseError } from "./errors";
import { parseRetryAfter } from "./retry-after";

export interface ClientOptions {
  /** The api's origin, e.g. http://localhost:3000. */
  baseUrl: string;
  /** An OAuth 2 access token (sent as Authorization: Bearer). */
  token: string;
  /** Defaults to the platform fetch. */
  fetch?: typeof fetch;
  /** Retries of one request after a 429 or 503, honouring Retry-After. Default 3. */
  maxRetries?: number;
  /** The most one request may spend waiting for retries, in total. Default 30 s. */
  maxRetryWaitMs?: number;
  /** Wait used between retries (tests replace it). */
  sleep?: (ms: number) => Promise<void>;
}

export interface ListOptions {
  page?: number;
  perPage?: number;
  /** An ETag of an earlier page: the result is `{ notModified: true }` when it still matches. */
  ifNoneMatch?: string;
  signal?: AbortSignal;
}

export interface ListPage<T> {
  notModified: false;
  items: T[];
  pagination: Pagination;
  /** X-Total-Count: the team's total number of items. */
  totalCount: number;
  etag: string | undefined;
  /** Link header targets by relation (first, prev, next, last), as absolute URLs. */
  links: Partial<Record<"first" | "prev" | "next" | "last", string>>;
}

export interface NotModified {
  notModified: true;
  etag: string | undefined;
}

export type ListResult<T> = ListPage<T> | NotModified;

export interface Collection<T> {
  list(options?: ListOptions): Promise<ListResult<T>>;
  /** Every item of the team, page after page, following the Link header's rel="next". */
  all(options?: { perPage?: number; signal?: AbortSignal; onPage?: (page: ListPage<T>) => void }): AsyncIterable<T>;
}

export interface CommunityClient {
  listEvents(options?: ListOptions): Promise<ListResult<Event>>;
  listGuides(options?: ListOptions): Promise<ListResult<Guide>>;
  events: Collection<Event>;
  guides: Collection<Guide>;
}

const PATHS = { events: "/v1/me/community/team/events", guides: "/v1/me/community/team/guides" } as const;

export function createClient(options: ClientOptions): CommunityClient {
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const maxRetries = options.maxRetries ?? 3;
  const maxRetryWaitMs = options.maxRetryWaitMs ?? 30_000;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const baseUrl = options.baseUrl.replace(/\/+$/, "");

  async function send(url: string, headers: Record<string, string>, signal?: AbortSignal): Promise<Response> {
    let waited = 0;
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await fetchImpl(url, { headers, signal });
      } catch (error) {
        if (signal?.aborted) throw error;
        throw new NetworkError(url, { cause: error });
      }
      if (response.status !== 429 && response.status !== 503) return response;
      const retryAfter = parseRetryAfter(response.headers.get("retry-after"));
      const waitMs = (retryAfter ?? 1) * 1000;
      if (attempt >= maxRetries || waited + waitMs > maxRetryWaitMs) return response;
      await response.body?.cancel();
      await sleep(waitMs);
      waited += waitMs;
    }
  }

  async function fetchPage<T>(url: string, ifNoneMatch?: string, signal?: AbortSignal): Promise<ListResult<T>> {
    const headers: Record<string, string> = { Authorization: `Bearer ${options.token}`, Accept: "application/json" };
    if (ifNoneMatch !== undefined) headers["If-None-Match"] = ifNoneMatch;
    const response = await send(url, headers, signal);
    const etag = response.headers.get("etag") ?? undefined;
    if (response.status === 304) return { notModified: true, etag };
    const text = await response.text();
    if (!response.ok) {
      throw apiError(response.status, parseProblem(text), url, parseRetryAfter(response.headers.get("retry-after")));
    }
    let body: ListEnvelope<T>;
    try {
      body = JSON.parse(text) as ListEnvelope<T>;
    } catch {
      throw new UnexpectedResponseError(response.status, url, "the body is not JSON");
    }
    return {
      notModified: false,
      items: body.guides,
      pagination: body.meta.pagination,
      totalCount: Number(response.headers.get("x-total-count") ?? Number.NaN),
      etag,
      links: parseLinks(response.headers.get("link"), url),
    };
  }

  function collection<T>(path: string): Collection<T> {
    const list = (listOptions: ListOptions = {}) => {
      const url = new URL(`${baseUrl}${path}`);
      if (listOptions.page !== undefined) url.searchParams.set("page", String(listOptions.page));
      if (listOptions.perPage !== undefined) url.searchParams.set("per_page", String(listOptions.perPage));
      return fetchPage<T>(url.toString(), listOptions.ifNoneMatch, listOptions.signal);
    };
    async function* all(allOptions: Parameters<Collection<T>["all"]>[0] = {}): AsyncGenerator<T> {
      let next: string | undefined = new URL(`${baseUrl}${path}`).toString();
      if (allOptions.perPage !== undefined) next = `${next}?per_page=${allOptions.perPage}`;
      const visited = new Set<string>();
      while (next !== undefined) {
        // A server that links back to a page it already served would loop forever.
        if (visited.has(next))
          throw new UnexpectedResponseError(200, next, "the next link points at a page already read");
        visited.add(next);
        const page: ListResult<T> = await fetchPage<T>(next, undefined, allOptions.signal);
        if (page.notModified) throw new UnexpectedResponseError(304, next, "a 304 without If-None-Match");
        allOptions.onPage?.(page);
        yield* page.items;
        next = page.links.next;
      }
    }
    return { list, all };
  }

  const events = collection<Event>(PATHS.events);
  const guides = collection<Guide>(PATHS.guides);
  return { listEvents: events.list, listGuides: guides.list, events, guides };
}

function parseProblem(text: string): Problem | undefined {
  try {
    const body = JSON.parse(text) as unknown;
    return typeof body === "object" && body !== null && "status" in body ? (body as Problem) : undefined;
  } catch {
    return undefined;
  }
}

function parseLinks(header: string | null, base: string): ListPage<unknown>["links"] {
  if (header === null) return {};
  const links: ListPage<unknown>["links"] = {};
  for (const rel of ["first", "prev", "next", "last"] as const) {
    const target = LinkHeader.parse(header).rel(rel)[0]?.uri;
    if (target !== undefined) links[rel] = new URL(target, base).toString();
  }
  return links;
}
