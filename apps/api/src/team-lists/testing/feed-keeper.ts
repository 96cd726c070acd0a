import { isDeepStrictEqual } from "node:util";
import type { Event, Guide } from "@community/domain";
import request from "supertest";
import { LISTS, ORACLE_TEAMS, type OracleContext, type OracleReader, type OracleTeam } from "./list-oracle";
import { expectedItems, LIST_PATH, type ListName } from "./list-truth";

/**
 * A reader of the oracle that keeps a copy of every team's lists the way a syncing client does
 * (contract 9.3): it takes a token, walks the list with cursors, then asks for the changes since
 * the token again and again, applying upserts and deletes, and starts again on 410 sync-expired.
 * Each step is one request, so tokens are taken and walks and changes read while the writers'
 * transactions are open, and many of those commit after a token was taken: the late commits the
 * feed must not miss. At every quiet point each copy, brought up to date, must equal the team's
 * rows read the plain way (every field, as the list serves it).
 */

type Item = Event | Guide;
type Change = { op: "upsert"; id: string; item: Item } | { op: "delete"; id: string };

interface Stream {
  list: ListName;
  team: OracleTeam;
  /** The token to ask the changes since; undefined until the stream has taken one. */
  since: string | undefined;
  /** The next cursor of the walk after the token, or undefined once it is done. */
  cursor: string | undefined;
  copy: Map<string, Item>;
  /**
   * The stream's first completed walk and the token it followed, never moved on: at each quiet
   * point the changes since that ever older token, applied to a copy of that walk, must give SQL
   * too (issue 44: the feed since an old token reads only the items changed since, not the history).
   */
  old: { since: string; copy: Map<string, Item> } | undefined;
}

/** What the feed keeper did, for the "oracle:" line. */
export interface FeedTally {
  tokens: number;
  /** Tokens taken while some writer's transaction was open. */
  tokensDuringWrites: number;
  walkPages: number;
  changePages: number;
  upserts: number;
  deletes: number;
  /** Transactions open when a token was taken and committed after it, each counted once. */
  lateCommits: number;
  /** Restarts from a full walk: on 410 sync-expired (by its detail), or by choice. */
  restarts: Record<string, number>;
  /** Copies held against SQL at quiet points, and how many of them had applied changes since the last. */
  checks: number;
  checksWithChanges: number;
  /** Copies rebuilt from a stream's first walk and the changes since its (old) token, held against SQL. */
  oldTokenChecks: number;
}

export class FeedKeeper implements OracleReader {
  readonly name = "feed keeper";
  readonly tally: FeedTally = {
    tokens: 0,
    tokensDuringWrites: 0,
    walkPages: 0,
    changePages: 0,
    upserts: 0,
    deletes: 0,
    lateCommits: 0,
    restarts: {},
    checks: 0,
    checksWithChanges: 0,
    oldTokenChecks: 0,
  };
  private readonly streams: Stream[] = ORACLE_TEAMS.flatMap((team) =>
    LISTS.map((list) => ({
      list,
      team,
      since: undefined,
      cursor: undefined,
      copy: new Map<string, Item>(),
      old: undefined,
    })),
  );
  /** Transactions open when a token was taken, not yet seen committed or ended. */
  private readonly openAtToken = new Set<number>();
  private readonly changedSinceCheck = new Set<Stream>();

  async step(context: OracleContext): Promise<void> {
    const { rng } = context;
    const stream = rng.pick(this.streams);
    // Now and then a copy starts again from a token and a walk, so walks run among open writes too.
    if (stream.since !== undefined && stream.cursor === undefined && rng.next() < 0.02) this.restart(stream, "chosen");
    await this.advance(context, stream, rng.pick([100, 100, 30, 7]));
  }

  async atQuietPoint(context: OracleContext): Promise<void> {
    const sql = context.e2e.database.pool;
    for (const stream of this.streams) {
      // Brought up to date: the rest of its walk, then every change waiting. No writer is busy, so
      // this ends; a 410 (a TRUNCATE since the token) starts the stream again.
      for (let request = 0; ; request++) {
        if (request > 1_000) context.fail(`${key(stream)}: the copy did not catch up in 1000 requests`);
        const more = await this.advance(context, stream, 100);
        if (!more) break;
      }
      const expected = await expectedItems(sql, stream.list, stream.team.id, 1_000_000, 0);
      const kept = [...stream.copy.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      const plain = [...expected].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      this.tally.checks++;
      if (this.changedSinceCheck.delete(stream)) this.tally.checksWithChanges++;
      if (!isDeepStrictEqual(kept, plain)) context.fail(`${key(stream)}: ${difference(kept, plain)}`);
      const old = stream.old === undefined ? undefined : await this.sinceOldToken(context, stream, stream.old);
      if (old !== undefined) {
        this.tally.oldTokenChecks++;
        const rebuilt = [...old.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
        if (!isDeepStrictEqual(rebuilt, plain)) {
          context.fail(`${key(stream)} since its first token: ${difference(rebuilt, plain)}`);
        }
      }
    }
    for (const serial of this.openAtToken) {
      if (context.writes.committed(serial)) this.tally.lateCommits++;
    }
    // Every writer has ended its transaction at a quiet point.
    this.openAtToken.clear();
  }

  summary(): string {
    const t = this.tally;
    return (
      `feed: ${t.tokens} tokens (${t.tokensDuringWrites} while writes were open, ${t.lateCommits} transactions ` +
      `committed after a token taken while they were open), ${t.walkPages} walk pages, ${t.changePages} change pages ` +
      `(${t.upserts} upserts, ${t.deletes} deletes), restarts ${JSON.stringify(t.restarts)}, ${t.checks} copies ` +
      `equal to SQL (${t.checksWithChanges} with changes applied since the last quiet point), ${t.oldTokenChecks} ` +
      `rebuilt from a first walk and its old token equal to SQL`
    );
  }

  /** The stream's first walk with every change since its token applied; undefined after a 410 (then forgotten). */
  private async sinceOldToken(
    context: OracleContext,
    stream: Stream,
    old: { since: string; copy: Map<string, Item> },
  ): Promise<Map<string, Item> | undefined> {
    const copy = new Map(old.copy);
    let since = old.since;
    for (let page = 0; page < 1_000; page++) {
      const response = await request(context.baseUrl)
        .get(`${LIST_PATH[stream.list]}/changes?per_page=100&since=${encodeURIComponent(since)}`)
        .set("Authorization", `Bearer ${stream.team.token}`)
        .set("Accept-Encoding", "identity");
      if (response.status === 410) {
        stream.old = undefined;
        return undefined;
      }
      if (response.status !== 200) context.fail(`${key(stream)}: changes since its first token got ${response.status}`);
      const { changes, meta } = response.body as {
        changes: Change[];
        meta: { sync: { next: string; has_more: boolean } };
      };
      for (const change of changes) {
        if (change.op === "upsert") copy.set(change.id, change.item);
        else copy.delete(change.id);
      }
      if (!meta.sync.has_more) return copy;
      since = meta.sync.next;
    }
    context.fail(`${key(stream)}: the changes since its first token did not end in 1000 pages`);
  }

  private restart(stream: Stream, why: string): void {
    stream.since = undefined;
    stream.cursor = undefined;
    stream.copy = new Map();
    this.tally.restarts[why] = (this.tally.restarts[why] ?? 0) + 1;
  }

  /** One request of the stream: a token, a page of its walk, or a page of changes. True if more wait. */
  private async advance(context: OracleContext, stream: Stream, perPage: number): Promise<boolean> {
    const path = LIST_PATH[stream.list];
    const get = (url: string) =>
      request(context.baseUrl)
        .get(url)
        .set("Authorization", `Bearer ${stream.team.token}`)
        .set("Accept-Encoding", "identity");
    if (stream.since === undefined) {
      const open = context.writes.open();
      const response = await get(`${path}/changes`);
      if (response.status !== 200) context.fail(`${key(stream)}: a token got ${response.status} ${response.text}`);
      this.noteToken(open);
      stream.since = response.body.meta.sync.next as string;
      stream.cursor = "";
      stream.copy = new Map();
      return true;
    }
    if (stream.cursor !== undefined) {
      const response = await get(`${path}?per_page=${perPage}&cursor=${encodeURIComponent(stream.cursor)}`);
      if (response.status !== 200) context.fail(`${key(stream)}: a walk page got ${response.status} ${response.text}`);
      this.tally.walkPages++;
      for (const item of response.body.guides as Item[]) stream.copy.set(item.id, item);
      stream.cursor = (response.body.meta.pagination.next_cursor as string | null) ?? undefined;
      if (stream.cursor === undefined && stream.old === undefined && stream.since !== undefined) {
        stream.old = { since: stream.since, copy: new Map(stream.copy) };
      }
      return true;
    }
    const open = context.writes.open();
    const response = await get(`${path}/changes?per_page=${perPage}&since=${encodeURIComponent(stream.since)}`);
    if (response.status === 410) {
      const problem = JSON.parse(response.text) as { type: string; detail: string };
      if (!/\/sync-expired$/.test(problem.type)) context.fail(`${key(stream)}: a 410 of type ${problem.type}`);
      this.restart(stream, `410 ${problem.detail}`);
      return true;
    }
    if (response.status !== 200) context.fail(`${key(stream)}: changes got ${response.status} ${response.text}`);
    const { changes, meta } = response.body as {
      changes: Change[];
      meta: { sync: { next: string; has_more: boolean } };
    };
    this.tally.changePages++;
    if (changes.length > perPage) context.fail(`${key(stream)}: ${changes.length} changes on a page of ${perPage}`);
    const ids = changes.map((c) => c.id);
    if (new Set(ids).size !== ids.length) context.fail(`${key(stream)}: an item twice on one page of changes: ${ids}`);
    for (const change of changes) {
      if (change.op === "upsert") {
        if (change.item.id !== change.id)
          context.fail(`${key(stream)}: an upsert of ${change.id} holds ${change.item.id}`);
        stream.copy.set(change.id, change.item);
        this.tally.upserts++;
      } else if (change.op === "delete") {
        stream.copy.delete(change.id);
        this.tally.deletes++;
      } else {
        context.fail(`${key(stream)}: a change of op ${JSON.stringify(change)}`);
      }
    }
    if (changes.length > 0) this.changedSinceCheck.add(stream);
    // A page that ends a round carries a token of its own: taken now, with whatever is open now.
    if (!meta.sync.has_more) this.noteToken(open);
    stream.since = meta.sync.next;
    return meta.sync.has_more;
  }

  /** `open`: the transactions open before the request that took the token (they began before it). */
  private noteToken(open: readonly number[]): void {
    this.tally.tokens++;
    if (open.length > 0) this.tally.tokensDuringWrites++;
    for (const serial of open) this.openAtToken.add(serial);
  }
}

const key = (stream: Stream) => `feed copy of ${stream.list}:${stream.team.id}`;

/** The ids only one side has, and the first item that differs. */
function difference(kept: Item[], plain: Item[]): string {
  const keptIds = new Set(kept.map((i) => i.id));
  const plainIds = new Set(plain.map((i) => i.id));
  const missing = plain.filter((i) => !keptIds.has(i.id)).map((i) => i.id);
  const extra = kept.filter((i) => !plainIds.has(i.id)).map((i) => i.id);
  const byId = new Map(plain.map((i) => [i.id, i]));
  const stale = kept.find((i) => byId.has(i.id) && !isDeepStrictEqual(i, byId.get(i.id)));
  return (
    `the copy kept by the feed differs from SQL: ${kept.length} items kept, ${plain.length} rows; ` +
    `missing ${JSON.stringify(missing.slice(0, 10))}, extra ${JSON.stringify(extra.slice(0, 10))}` +
    (stale === undefined
      ? ""
      : `; first stale item: kept ${JSON.stringify(stale)}, SQL ${JSON.stringify(byId.get(stale.id))}`)
  );
}
