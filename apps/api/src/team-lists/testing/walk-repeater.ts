import { isDeepStrictEqual } from "node:util";
import type { Event, Guide } from "@community/domain";
import { eventStatus } from "@community/fixtures/testing";
import request from "supertest";
import { LISTS, ORACLE_TEAMS, type OracleContext, type OracleReader, type OracleTeam } from "./list-oracle";
import { expectedItems, LIST_PATH, type ListName } from "./list-truth";

/**
 * A reader of the oracle that asks again for what it asked before, the way clients do: cursor
 * pages and filtered pages (each of a few filters per list), half the time a request it has made
 * already, so that many are answered from the page cache, keyed by the list version the token
 * lookup reads. While writers are busy a page can only be checked against itself (its items match
 * its filters, in order, once each; a filtered page's tag always comes with the same bytes); at
 * every quiet point each filter's full cursor walk, three times (the last all from the cache), and
 * each filtered page it read, must equal plain SQL.
 */

type Item = Event | Guide;

interface Filter {
  list: ListName;
  /** As a query string's tail: "" or `&name=value...`. */
  query: string;
  keep: (item: Item) => boolean;
}

const FROM = "2026-05-31T19:50:00Z";
const time = (text: string | null) => (text === null ? Number.NaN : Date.parse(text));

const FILTERS: readonly Filter[] = [
  { list: "events", query: "", keep: () => true },
  { list: "events", query: "&status=scheduled", keep: (i) => eventStatus(i as Event) === "scheduled" },
  {
    list: "events",
    query: `&scheduled_from=${FROM}`,
    keep: (i) => time((i as Event).scheduled_at) >= Date.parse(FROM),
  },
  { list: "guides", query: "", keep: () => true },
  { list: "guides", query: "&status=published", keep: (i) => (i as Guide).published_at !== null },
  {
    list: "guides",
    query: `&published_to=${FROM}`,
    keep: (i) => (i as Guide).published_at !== null && time((i as Guide).published_at) < Date.parse(FROM),
  },
];

/** A request the reader has made: a cursor page, or a filtered page in page mode. */
interface Asked {
  team: OracleTeam;
  filter: Filter;
  url: string;
  /** Page mode: the page and page size (the cursor pages' position is in their url). */
  page?: { page: number; perPage: number };
}

export interface WalkRepeaterTally {
  requests: number;
  /** Requests made again (the same URL as an earlier one). */
  repeats: number;
  /** Cursor walks and filtered pages held against SQL at quiet points. */
  checks: number;
  /** Page cache hits counted while the quiet points' later walks and reads ran (only this reader runs then). */
  quietHits: number;
}

export class WalkRepeater implements OracleReader {
  readonly name = "walk repeater";
  readonly tally: WalkRepeaterTally = { requests: 0, repeats: 0, checks: 0, quietHits: 0 };
  private readonly asked = new Map<string, Asked>();
  /** Per team, list and filter: the next cursors seen, to go deeper from. */
  private readonly cursors = new Map<string, string[]>();
  /** Per team, list and filter, what was touched since the last quiet point. */
  private readonly touched = new Map<string, { team: OracleTeam; filter: Filter }>();

  async step(context: OracleContext): Promise<void> {
    const { rng } = context;
    const known = [...this.asked.values()];
    if (known.length > 0 && rng.next() < 0.5) {
      this.tally.repeats++;
      await this.ask(context, rng.pick(known));
      return;
    }
    const team = rng.weighted(ORACLE_TEAMS.map((t) => [t, t.size > 1_000 ? 4 : 2] as const));
    const list = rng.pick(LISTS);
    const filter = rng.pick(FILTERS.filter((f) => f.list === list));
    const path = `${LIST_PATH[filter.list]}`;
    const deeper = this.cursors.get(walkKey(team, filter)) ?? [];
    if (filter.query === "" || rng.next() < 0.5) {
      const cursor = deeper.length > 0 && rng.next() < 0.7 ? rng.pick(deeper) : "";
      const perPage = 30;
      await this.ask(context, {
        team,
        filter,
        url: `${path}?per_page=${perPage}&cursor=${encodeURIComponent(cursor)}${filter.query}`,
      });
    } else {
      const page = { page: rng.int(1, 3), perPage: rng.pick([10, 30]) };
      await this.ask(context, {
        team,
        filter,
        url: `${path}?page=${page.page}&per_page=${page.perPage}${filter.query}`,
        page,
      });
    }
  }

  async atQuietPoint(context: OracleContext): Promise<void> {
    const sql = context.e2e.database.pool;
    for (const { team, filter } of this.touched.values()) {
      const expected = (await expectedItems(sql, filter.list, team.id, 1_000_000, 0)).filter(filter.keep);
      // Three walks: the cache admits a page past a walk's first on its second read, so the third
      // comes from it whole.
      const first = await this.walk(context, team, filter);
      const hits = await pageCacheHits(context);
      const second = await this.walk(context, team, filter);
      const third = await this.walk(context, team, filter);
      this.tally.quietHits += (await pageCacheHits(context)) - hits;
      for (const walked of [first, second, third]) {
        if (!isDeepStrictEqual(walked, expected)) {
          const at = expected.findIndex((item, i) => !isDeepStrictEqual(item, walked[i]));
          context.fail(
            `${walkKey(team, filter)}: a cursor walk of ${walked.length} items, SQL has ${expected.length}; ` +
              `first difference at ${at}: walked ${JSON.stringify(walked[at])}, expected ${JSON.stringify(expected[at])}`,
          );
        }
      }
      this.tally.checks++;
      for (const asked of this.asked.values()) {
        if (asked.page === undefined || asked.team !== team || asked.filter !== filter) continue;
        const { page, perPage } = asked.page;
        const want = expected.slice((page - 1) * perPage, page * perPage);
        for (let round = 0; round < 2; round++) {
          const before = await pageCacheHits(context);
          const response = await this.get(context, asked);
          if (round === 1) this.tally.quietHits += (await pageCacheHits(context)) - before;
          const items = response.body.guides as Item[];
          if (!isDeepStrictEqual(items, want) || response.headers["x-total-count"] !== String(expected.length)) {
            context.fail(
              `${asked.url} (${team.id}): served ${JSON.stringify(items.map((i) => i.id))} of ` +
                `${response.headers["x-total-count"]}, SQL has ${JSON.stringify(want.map((i) => i.id))} of ${expected.length}`,
            );
          }
        }
        this.tally.checks++;
      }
    }
    this.touched.clear();
  }

  summary(): string {
    const t = this.tally;
    return (
      `walk repeater: ${t.requests} cursor and filtered requests (${t.repeats} repeated), ${t.checks} walks and ` +
      `filtered pages equal to SQL at quiet points, ${t.quietHits} page cache hits among their later reads`
    );
  }

  private get(context: OracleContext, asked: Asked) {
    return request(context.baseUrl)
      .get(asked.url)
      .set("Authorization", `Bearer ${asked.team.token}`)
      .set("Accept-Encoding", "identity");
  }

  /** One request while writers may be busy: checked against itself, its next cursor kept. */
  private async ask(context: OracleContext, asked: Asked): Promise<void> {
    this.tally.requests++;
    this.asked.set(`${asked.team.id} ${asked.url}`, asked);
    this.touched.set(walkKey(asked.team, asked.filter), { team: asked.team, filter: asked.filter });
    const last = asked.page === undefined ? undefined : context.lastServed.get(`${asked.team.id} ${asked.url}`);
    const sent = this.get(context, asked);
    const response = await (last === undefined || context.rng.next() < 0.5
      ? sent
      : sent.set("If-None-Match", last.tag));
    const where = `${asked.url} (${asked.team.id})`;
    if (response.status === 304) return;
    if (response.status !== 200) context.fail(`${where}: status ${response.status} ${response.text}`);
    const items = response.body.guides as Item[];
    if (items.some((item) => !asked.filter.keep(item))) context.fail(`${where}: an item its filters exclude`);
    if (new Set(items.map((i) => i.id)).size !== items.length) context.fail(`${where}: an item twice on one page`);
    if (asked.page === undefined) {
      const next = response.body.meta.pagination.next_cursor as string | null;
      if (next !== null) {
        const key = walkKey(asked.team, asked.filter);
        const list = this.cursors.get(key) ?? [];
        if (!list.includes(next)) list.push(next);
        this.cursors.set(key, list.slice(-20));
      }
      return;
    }
    const tag = response.headers.etag as string | undefined;
    if (tag === undefined) context.fail(`${where}: a page without an ETag`);
    const total = Number(response.headers["x-total-count"]);
    const { page, perPage } = asked.page;
    if (items.length !== Math.max(0, Math.min(perPage, total - (page - 1) * perPage))) {
      context.fail(`${where}: ${items.length} items on page ${page} of a list of ${total}`);
    }
    const served = `${asked.team.id} ${asked.url} ${tag}`;
    const before = context.servedBytes.get(served);
    if (before !== undefined && before !== response.text) context.fail(`${where}: tag ${tag} with two bodies`);
    context.servedBytes.set(served, response.text);
    context.lastServed.set(`${asked.team.id} ${asked.url}`, { tag, text: response.text });
  }

  /** A full cursor walk of a team's list under a filter, at a quiet point. */
  private async walk(context: OracleContext, team: OracleTeam, filter: Filter): Promise<Item[]> {
    const items: Item[] = [];
    let cursor = "";
    for (let page = 0; page < 1_000; page++) {
      const asked = {
        team,
        filter,
        url: `${LIST_PATH[filter.list]}?per_page=30&cursor=${encodeURIComponent(cursor)}${filter.query}`,
      };
      const response = await this.get(context, asked);
      if (response.status !== 200) context.fail(`${asked.url} (${team.id}): status ${response.status}`);
      items.push(...(response.body.guides as Item[]));
      const next = response.body.meta.pagination.next_cursor as string | null;
      if (next === null) return items;
      cursor = next;
    }
    return context.fail(`${walkKey(team, filter)}: a walk of more than 1000 pages`);
  }
}

const walkKey = (team: OracleTeam, filter: Filter) => `${filter.list}:${team.id}${filter.query}`;

/** The api's page cache hits so far (its /metrics). */
async function pageCacheHits(context: OracleContext): Promise<number> {
  const text = (await request(context.baseUrl).get("/metrics")).text;
  const line = text.split("\n").find((l) => l.startsWith("list_page_cache_hits_total "));
  return Number(line?.split(" ")[1] ?? Number.NaN);
}
