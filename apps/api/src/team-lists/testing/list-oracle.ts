import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { isDeepStrictEqual } from "node:util";
import { createDatabase } from "@community/db";
import {
  LockMonitor,
  SqlSession,
  seededRandom,
  settledOrWaiting,
  sqlState,
  statusCountMismatches,
  track,
} from "@community/db/testing";
import type { FixtureEvent, FixtureFile, FixtureGuide } from "@community/domain";
import { fixtureEvent, fixtureGuide } from "@community/domain/testing";
import { loadFixture } from "@community/fixtures";
import type { Backend, E2eApp } from "../../testing/e2e-app";
import { countItems, expectedItems, getList, type ListName, type ListResponse, type Sql } from "./list-truth";

/**
 * The oracle of the team lists under concurrent writes. Writers run overlapping transactions
 * (inserts, deletes, moves between teams, sort-key, id and status changes, account renames, TRUNCATE) and
 * batch loads through the fixtures loader, while readers walk pages and revalidate through the
 * api. A scheduler drives them one step at a time from a seeded random stream; a step that waits
 * for a lock (pg_stat_activity) is left waiting and the others go on. At every quiet point (every
 * writer committed or rolled back) the api's pages must equal the plain offset query, totals must
 * equal count(*) (and the kept count of each status its filter's count), a 304 must mean the same
 * bytes, and no list version may ever have gone back.
 *
 * More readers join through `OracleReader`: a copy kept by the change feed, for instance, steps
 * among the others and is held against the same truth at every quiet point.
 */

export const LISTS: readonly ListName[] = ["events", "guides"];

/** A seeded stream of numbers in [0, 1) (mulberry32): the same seed, the same schedule. */
export class Rng {
  readonly next: () => number;

  constructor(seed: number) {
    this.next = seededRandom(seed);
  }

  int(low: number, high: number): number {
    return low + Math.floor(this.next() * (high - low + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }

  weighted<T>(choices: ReadonlyArray<readonly [T, number]>): T {
    let r = this.next() * choices.reduce((sum, [, w]) => sum + w, 0);
    for (const [choice, weight] of choices) {
      r -= weight;
      if (r < 0) return choice;
    }
    return choices[choices.length - 1]?.[0] as T;
  }
}

export interface OracleTeam {
  id: string;
  token: string;
  /** Items of each list at the start. */
  size: number;
}

export const ORACLE_TEAMS: readonly OracleTeam[] = [
  { id: "team_big", token: "tok-big", size: 1_300 },
  { id: "team_mid", token: "tok-mid", size: 60 },
  { id: "team_small", token: "tok-small", size: 5 },
];
// acc_rare owns few items, so a rename of it often races the insert of its first item in a team.
const ACCOUNTS = ["acc_0", "acc_1", "acc_2", "acc_3", "acc_rare"];
const itemAccount = (rng: Rng) => rng.weighted(ACCOUNTS.map((id) => [id, id === "acc_rare" ? 0.1 : 1] as const));
const BASE = Date.UTC(2026, 5, 1);
const SPAN_MINUTES = 500;
const at = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;

/** An instant among SPAN_MINUTES minutes: the items share them, so ties on the sort key are common. */
const instant = (rng: Rng) => at(BASE - rng.int(0, SPAN_MINUTES) * 60_000);

let serial = 0;
const nextSerial = () => ++serial;

/** What every new item has: its team, an account drawn by weight, a slug of its own and a name. */
const itemFields = (rng: Rng, team: string, id: string, name: string) => ({
  team_id: team,
  account_id: itemAccount(rng),
  slug: `s-${id}-${nextSerial()}`,
  name,
});

function newEvent(rng: Rng, team: string, id = `ev_n${nextSerial()}`): FixtureEvent {
  return fixtureEvent(id, { ...itemFields(rng, team, id, `Event ${id}`), scheduled_at: instant(rng) });
}

function newGuide(rng: Rng, team: string, id = `gd_n${nextSerial()}`): FixtureGuide {
  return fixtureGuide(id, {
    ...itemFields(rng, team, id, `Guide ${id}`),
    published_at: rng.next() < 0.15 ? null : instant(rng),
  });
}

export function oracleFixture(seed: number): FixtureFile {
  serial = 0;
  const rng = new Rng(seed);
  return {
    accounts: ACCOUNTS.map((id) => ({
      id,
      slug: id.replace("_", "-"),
      name: `Account ${id}`,
      partner: false,
      profile_image_url: null,
      cover_image_url: null,
    })),
    teams: ORACLE_TEAMS.map((t) => ({ id: t.id, name: t.id })),
    users: ORACLE_TEAMS.map((t) => ({ id: `u_${t.id}`, name: t.id, team_id: t.id })),
    access_tokens: ORACLE_TEAMS.map((t) => ({
      token: t.token,
      user_id: `u_${t.id}`,
      client_id: "oracle",
      expires_at: null,
      revoked: false,
    })),
    events: ORACLE_TEAMS.flatMap((t) => Array.from({ length: t.size }, () => newEvent(rng, t.id))),
    guides: ORACLE_TEAMS.flatMap((t) => Array.from({ length: t.size }, () => newGuide(rng, t.id))),
  };
}

/** What the readers share: the app, the truth, and what every URL was last served as. */
export interface OracleContext {
  e2e: E2eApp;
  /** The api's base URL (its server listens on a loopback port for the whole run). */
  baseUrl: string;
  rng: Rng;
  /** Per URL (list, team, page, per_page): the last tag served and the bytes that came with it. */
  lastServed: Map<string, { tag: string; text: string }>;
  /** Every (URL, tag) ever served with a body, and its bytes: one tag, one representation. */
  servedBytes: Map<string, string>;
  /** Fails the run with what went wrong and the seed that replays it. */
  fail(message: string): never;
  /** The writers' and the loader's transactions, by serial: which are open now, and which committed. */
  writes: {
    open(): readonly number[];
    committed(serial: number): boolean;
  };
}

/** A reader among the oracle's actors: one step at a time, and its own check at every quiet point. */
export interface OracleReader {
  name: string;
  step(context: OracleContext): Promise<void>;
  atQuietPoint(context: OracleContext): Promise<void>;
  /** What it did, for the "oracle:" line. */
  summary?(): string;
}

export interface PageAddress {
  list: ListName;
  team: OracleTeam;
  page: number;
  perPage: number;
}

const urlOf = (a: PageAddress) => `${a.list}:${a.team.id}:${a.page}:${a.perPage}`;

/** Serves a page and records it: a tag seen before must come with the same bytes as before. */
export async function readPage(context: OracleContext, address: PageAddress, ifNoneMatch?: string) {
  const response = await getList(
    context.baseUrl,
    address.list,
    address.team.token,
    address.page,
    address.perPage,
    ifNoneMatch,
  );
  const url = urlOf(address);
  if (response.status === 200 && response.etag !== undefined) {
    const key = `${url} ${response.etag}`;
    const before = context.servedBytes.get(key);
    if (before !== undefined && before !== response.text) {
      context.fail(`${url}: tag ${response.etag} served with two different bodies`);
    }
    context.servedBytes.set(key, response.text);
    context.lastServed.set(url, { tag: response.etag, text: response.text });
  } else if (response.status !== 304) {
    context.fail(`${url}: status ${response.status} ${response.text}`);
  }
  return response;
}

/**
 * The api as a client sees it: pages walked at random depths (deep ones seek from cached
 * boundaries) and revalidated with the last tag, while the writers are busy. In between, a page
 * can only be checked against itself; at quiet points the pages it read, and a sample of every
 * list's pages, are held against the plain offset query and revalidated with their last tag.
 */
export class PageWalker implements OracleReader {
  readonly name = "page walker";
  private readonly touched = new Map<string, PageAddress>();
  private readonly totals = new Map<string, number>();

  async step(context: OracleContext): Promise<void> {
    const { rng } = context;
    const seen = [...this.touched.values()];
    if (seen.length > 0 && rng.next() < 0.4) {
      const address = rng.pick(seen);
      await readPage(context, address, context.lastServed.get(urlOf(address))?.tag);
      return;
    }
    const team = rng.weighted(ORACLE_TEAMS.map((t) => [t, t.size > 1_000 ? 6 : 2] as const));
    const list = rng.pick(LISTS);
    const perPage = rng.pick([100, 100, 30]);
    const total = this.totals.get(`${list}:${team.id}`) ?? team.size;
    const pages = Math.max(1, Math.ceil(total / perPage));
    const page =
      rng.next() < 0.5 ? rng.int(Math.min(pages, Math.floor(1_000 / perPage) + 1), pages) : rng.int(1, pages + 1);
    const address = { list, team, page, perPage };
    this.touched.set(urlOf(address), address);
    const response = await readPage(context, address);
    if (response.status === 200) expectSelfConsistent(context, address, response);
  }

  async atQuietPoint(context: OracleContext): Promise<void> {
    const sql = context.e2e.database.pool;
    // The pages read since the last quiet point, and a few more of every list: the first, one past
    // the end, one anywhere and a deep one (every page of every list would slow the run down).
    const addresses = new Map(this.touched);
    for (const team of ORACLE_TEAMS) {
      for (const list of LISTS) {
        const count = await countItems(sql, list, team.id);
        this.totals.set(`${list}:${team.id}`, count);
        const last = Math.ceil(count / 100);
        for (const page of new Set([1, last + 1, context.rng.int(1, last), context.rng.int(11, 14)])) {
          const address = { list, team, page: Math.max(1, page), perPage: 100 };
          addresses.set(urlOf(address), address);
        }
      }
    }
    // A few pages at a time: the database is quiet, so their order does not matter.
    const queue = [...addresses.values()];
    const checkNext = async (): Promise<void> => {
      for (let address = queue.pop(); address !== undefined; address = queue.pop()) {
        await this.checkPage(context, address);
      }
    };
    await Promise.all([checkNext(), checkNext(), checkNext(), checkNext()]);
    this.touched.clear();
  }

  /** The page equals the offset query; its last tag gets a 304 only if the bytes are the same. */
  private async checkPage(context: OracleContext, address: PageAddress): Promise<void> {
    const sql = context.e2e.database.pool;
    const url = urlOf(address);
    const previous = context.lastServed.get(url);
    const fresh = await readPage(context, address);
    if (fresh.status !== 200) context.fail(`${url}: a GET without a tag got ${fresh.status}`);
    const offset = (address.page - 1) * address.perPage;
    const expected = await expectedItems(sql, address.list, address.team.id, address.perPage, offset);
    const count = await countItems(sql, address.list, address.team.id);
    if (!isDeepStrictEqual(fresh.items, expected)) {
      const at = Math.max(
        0,
        expected.findIndex((item, i) => !isDeepStrictEqual(item, fresh.items[i])),
      );
      context.fail(
        `${url}: served ids ${JSON.stringify(fresh.items.map((i) => i.id))}\n` +
          `expected ids ${JSON.stringify(expected.map((i) => i.id))}\n` +
          `first difference at ${at}: served ${JSON.stringify(fresh.items[at])}, expected ${JSON.stringify(expected[at])}`,
      );
    }
    if (fresh.total !== String(count)) context.fail(`${url}: X-Total-Count ${fresh.total}, count(*) ${count}`);
    if (previous === undefined) return;
    const revalidated = await readPage(context, address, previous.tag);
    if (revalidated.status === 304 && previous.text !== fresh.text) {
      context.fail(`${url}: 304 for tag ${previous.tag}, whose body differs from the current one`);
    }
    if (revalidated.status === 200 && revalidated.text !== fresh.text) {
      context.fail(`${url}: two bodies from one quiet database`);
    }
  }
}

/** A page read while writers are busy still comes from one snapshot: its size agrees with its total. */
function expectSelfConsistent(context: OracleContext, address: PageAddress, response: ListResponse): void {
  const total = Number(response.total);
  const offset = (address.page - 1) * address.perPage;
  const size = Math.max(0, Math.min(address.perPage, total - offset));
  if (response.items.length !== size) {
    context.fail(`${urlOf(address)}: ${response.items.length} items on a page of a list of ${total}`);
  }
  if (new Set(response.items.map((i) => i.id)).size !== response.items.length) {
    context.fail(`${urlOf(address)}: an item twice on one page`);
  }
}

type Op = { kind: string; text: string; values: unknown[] };

/** One statement of a writer's transaction, its rows picked by a seeded hash over ids. */
function writeOp(rng: Rng): Op {
  const list = rng.pick(LISTS);
  const team = rng.pick(ORACLE_TEAMS).id;
  const pickSeed = String(rng.next());
  const k = rng.int(1, 4);
  const picked = `SELECT id FROM ${list} WHERE team_id = $1 ORDER BY md5(id || $2) LIMIT $3`;
  const sortColumn = list === "events" ? "scheduled_at" : "published_at";
  const kind = rng.weighted([
    ["insert", 20],
    ["delete", 12],
    ["move", 10],
    ["sort", 12],
    ["id", 8],
    ["id+team", 6],
    ["account", 10],
    ["status", 10],
    ["truncate", 0.2],
  ] as const);
  switch (kind) {
    case "insert": {
      const rows = Array.from({ length: k }, () =>
        list === "events" ? newEvent(rng, team) : (newGuide(rng, team) as FixtureEvent | FixtureGuide),
      );
      const key = (r: FixtureEvent | FixtureGuide) => ("scheduled_at" in r ? r.scheduled_at : r.published_at);
      return {
        kind,
        text: `INSERT INTO ${list} (id, team_id, account_id, slug, name, ${sortColumn}, price_in_cents, currency${list === "events" ? ", duration_seconds, offer_replay_purchase" : ""})
               SELECT id, $1, account_id, slug, name, k, 100, 'USD'${list === "events" ? ", 60, false" : ""}
                 FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[]) AS r(id, account_id, slug, name, k)`,
        values: [
          team,
          rows.map((r) => r.id),
          rows.map((r) => r.account_id),
          rows.map((r) => r.slug),
          rows.map((r) => r.name),
          rows.map(key),
        ],
      };
    }
    case "delete":
      return { kind, text: `DELETE FROM ${list} WHERE id IN (${picked})`, values: [team, pickSeed, k] };
    case "move":
      return {
        kind,
        text: `UPDATE ${list} SET team_id = $4 WHERE id IN (${picked})`,
        values: [team, pickSeed, k, rng.pick(ORACLE_TEAMS).id],
      };
    case "sort":
      return {
        kind,
        text: `UPDATE ${list} SET ${sortColumn} = $4::timestamptz WHERE id IN (${picked})`,
        values: [team, pickSeed, k, list === "guides" && rng.next() < 0.2 ? null : instant(rng)],
      };
    case "id":
      // A new id reorders the item among those that share its sort key.
      return {
        kind,
        text: `UPDATE ${list} SET id = $4 || md5(id) WHERE id IN (${picked})`,
        values: [team, pickSeed, k, `${list.slice(0, 2)}_${rng.pick(["a", "m", "z"])}`],
      };
    case "id+team":
      return {
        kind,
        text: `UPDATE ${list} SET id = $4 || md5(id), team_id = $5 WHERE id IN (${picked})`,
        values: [team, pickSeed, k, `${list.slice(0, 2)}_${rng.pick(["b", "n", "y"])}`, rng.pick(ORACLE_TEAMS).id],
      };
    case "status": {
      // Events to any status (derived from their data: contract 9.2), guides published or back to drafts.
      if (list === "guides") {
        return {
          kind,
          text: `UPDATE guides SET published_at = CASE WHEN published_at IS NULL THEN $4::timestamptz END WHERE id IN (${picked})`,
          values: [team, pickSeed, k, instant(rng)],
        };
      }
      const [live, completed, canceled] = rng.pick([
        [false, false, false],
        [true, false, false],
        [true, true, false],
        [rng.next() < 0.5, false, true],
      ]);
      return {
        kind,
        text: `UPDATE events SET live_at = CASE WHEN $4 THEN scheduled_at END, completed_at = CASE WHEN $5 THEN scheduled_at END,
                      canceled_at = CASE WHEN $6 THEN scheduled_at END WHERE id IN (${picked})`,
        values: [team, pickSeed, k, live, completed, canceled],
      };
    }
    case "account":
      return {
        kind,
        text: "UPDATE accounts SET name = $2 WHERE id = $1",
        values: [rng.pick(ACCOUNTS), `Account renamed ${nextSerial()}`],
      };
    case "truncate":
      return { kind, text: `TRUNCATE ${list}`, values: [] };
  }
}

/** What happened, for the "oracle:" line. */
export interface OracleTally {
  steps: number;
  /** Steps taken while another actor's transaction was open: the interleavings. */
  interleaved: number;
  /**
   * Steps by another actor than the step before: on the embedded database, which runs one
   * transaction at a time, the interleavings are these, between whole transactions and reads.
   */
  switches: number;
  readsDuringWrites: number;
  waits: number;
  commits: number;
  rollbacks: number;
  loads: number;
  /** The writers' statements, by kind. */
  statements: Record<string, number>;
  quietPoints: number;
  /** Transactions the database aborted, by SQLSTATE (deadlocks between writers' own rows, say). */
  aborted: Record<string, number>;
  /** The first aborts inside the tracking's functions, with PostgreSQL's detail and context. */
  trackingAborts: string[];
}

interface Actor {
  name: string;
  busy: Promise<void> | undefined;
  /** The sessions whose lock waits stand for this actor's (none: any session but the writers'). */
  pids: number[];
}

interface Writer extends Actor {
  session: SqlSession;
  inTransaction: boolean;
  /** The serial of its open transaction. */
  transaction: number;
  opsLeft: number;
}

export interface OracleOptions {
  backend: Backend;
  e2e: E2eApp;
  seed: number;
  seconds: number;
  readers: OracleReader[];
}

/**
 * Runs the oracle until `seconds` have passed, then ends at a quiet point. Throws at the first
 * violation with the seed; returns the tally.
 */
export async function runOracle({ backend, e2e, seed, seconds, readers }: OracleOptions): Promise<OracleTally> {
  const rng = new Rng(seed);
  const onServer = backend === "postgres";
  const monitor = onServer ? await LockMonitor.open(e2e.url) : undefined;
  const fail = (message: string): never => {
    throw new Error(`oracle (seed ${seed}, ORACLE_SEED=${seed} replays it): ${message}`);
  };
  const server = e2e.app.getHttpServer() as Server;
  if (!server.listening) await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let transactions = 0;
  const committed = new Set<number>();
  let loading: number | undefined;
  const writes: OracleContext["writes"] = {
    open: () => [
      ...writers.filter((w) => w.inTransaction).map((w) => w.transaction),
      ...(loading === undefined ? [] : [loading]),
    ],
    committed: (serial) => committed.has(serial),
  };
  const context: OracleContext = {
    e2e,
    baseUrl,
    rng,
    lastServed: new Map(),
    servedBytes: new Map(),
    fail,
    writes,
  };
  const tally: OracleTally = {
    steps: 0,
    interleaved: 0,
    switches: 0,
    readsDuringWrites: 0,
    waits: 0,
    commits: 0,
    rollbacks: 0,
    loads: 0,
    statements: {},
    quietPoints: 0,
    aborted: {},
    trackingAborts: [],
  };
  // PGlite serves 4 connections, the api holds one: two writers and the loader.
  const writers: Writer[] = [];
  for (let i = 0; i < (onServer ? 3 : 2); i++) {
    const session = await SqlSession.open(e2e.url, monitor);
    // Deadlocks between the writers' own rows are found sooner than the default second.
    if (onServer) await session.query("SET deadlock_timeout = '100ms'");
    writers.push({
      name: `writer ${i}`,
      session,
      busy: undefined,
      pids: [session.pid],
      inTransaction: false,
      transaction: 0,
      opsLeft: 0,
    });
  }
  // The loader's own connection; its lock waits are told apart from the writers' only.
  const loaderDb = createDatabase({
    url: e2e.url,
    poolMax: 1,
    // A load may wait for the writers' locks as long as the schedule keeps them.
    statementTimeoutMs: 600_000,
    onIdleError: () => undefined,
  });
  const loaderPool = loaderDb.pool;
  const loader: Actor = { name: "loader", busy: undefined, pids: [] };
  const readerActors = readers.map((reader) => ({ name: reader.name, busy: undefined, pids: [] as number[], reader }));
  const writerPids = writers.map((w) => w.session.pid);
  const versions = new Map<string, bigint>();

  const openTransactions = () => writers.filter((w) => w.inTransaction).length + (loader.busy ? 1 : 0);

  async function sampleVersions(): Promise<void> {
    const sql: Sql = monitor ?? e2e.database.pool;
    const { rows } = await sql.query<{ team_id: string; list: string; version: string }>(
      "SELECT team_id, list, version::text AS version FROM team_list_stats",
      [],
    );
    for (const row of rows) {
      const key = `${row.list}:${row.team_id}`;
      const version = BigInt(row.version);
      const before = versions.get(key);
      if (before !== undefined && version < before) fail(`${key}: version went back from ${before} to ${version}`);
      versions.set(key, version);
    }
  }

  const noteAbort = (error: unknown) => {
    // Told apart: an abort inside the change tracking's own functions, and one between the writers' rows.
    const where = typeof error === "object" && error !== null && "where" in error ? String(error.where) : "";
    const code = `${sqlState(error) ?? "other"}${/team_list/.test(where) ? " in tracking" : ""}`;
    tally.aborted[code] = (tally.aborted[code] ?? 0) + 1;
    if (code.endsWith("in tracking") && tally.trackingAborts.length < 3) {
      const detail = typeof error === "object" && error !== null && "detail" in error ? String(error.detail) : "";
      tally.trackingAborts.push(`${String(error)} | ${detail} | ${where}`.replace(/\s+/g, " "));
    }
    if (code.startsWith("other")) fail(`a writer failed: ${String(error)}`);
  };

  /** One statement of a writer: BEGIN and the first one, the next one, or the end of its transaction. */
  async function writerStep(writer: Writer, finish: boolean): Promise<void> {
    const { session } = writer;
    try {
      if (!writer.inTransaction) {
        await session.query("BEGIN");
        writer.transaction = ++transactions;
        writer.inTransaction = true;
        writer.opsLeft = rng.int(1, 4);
      }
      if (writer.opsLeft > 0 && !finish) {
        writer.opsLeft--;
        const op = writeOp(rng);
        tally.statements[op.kind] = (tally.statements[op.kind] ?? 0) + 1;
        await session.query(op.text, op.values);
        return;
      }
      const commit = rng.next() < 0.85;
      await session.query(commit ? "COMMIT" : "ROLLBACK");
      writer.inTransaction = false;
      if (commit) {
        tally.commits++;
        committed.add(writer.transaction);
      } else tally.rollbacks++;
    } catch (error) {
      noteAbort(error);
      await session.query("ROLLBACK");
      writer.inTransaction = false;
    }
  }

  /** A whole load through the fixtures loader: new items, and existing ones moved, re-keyed and renamed. */
  async function loaderStep(): Promise<void> {
    const file: FixtureFile = { accounts: [], teams: [], users: [], access_tokens: [], events: [], guides: [] };
    const big = ORACLE_TEAMS[0] as OracleTeam;
    for (const list of LISTS) {
      // A list that TRUNCATE or deletes took below the depth of boundary seeks is filled up again.
      const { rows: counted } = await loaderPool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM ${list} WHERE team_id = $1`,
        [big.id],
      );
      const refill = (counted[0]?.n ?? 0) < 1_000;
      const team = refill ? big.id : rng.pick(ORACLE_TEAMS).id;
      // Existing items of any team, moved to this one, re-keyed and renamed by the upsert.
      const { rows } = await loaderPool.query<{ id: string }>(
        `SELECT id FROM ${list} ORDER BY md5(id || $1) LIMIT $2`,
        [String(rng.next()), rng.int(0, 5)],
      );
      const size = refill ? big.size : rng.int(1, 30);
      if (list === "events") {
        file.events = [
          ...rows.map((r) => newEvent(rng, team, r.id)),
          ...Array.from({ length: size }, () => newEvent(rng, team)),
        ];
      } else {
        file.guides = [
          ...rows.map((r) => newGuide(rng, team, r.id)),
          ...Array.from({ length: size }, () => newGuide(rng, team)),
        ];
      }
    }
    loading = ++transactions;
    try {
      await loadFixture(loaderDb, file, {
        copyThreshold: rng.next() < 0.5 ? 0 : 10_000,
      });
      tally.loads++;
      committed.add(loading);
    } catch (error) {
      noteAbort(error);
    } finally {
      loading = undefined;
    }
  }

  let previousActor: Actor | undefined;

  /** Starts the actor's step and returns once it finished or waits for a lock. */
  async function start(actor: Actor, run: () => Promise<void>): Promise<void> {
    const own = writers.some((w) => w === actor && w.inTransaction) ? 1 : 0;
    const open = openTransactions() - own > 0;
    const tracked = track(run());
    actor.busy = tracked.promise.then(
      () => {
        actor.busy = undefined;
      },
      (error: unknown) => {
        actor.busy = undefined;
        failure ??= error;
      },
    );
    tally.steps++;
    if (open) tally.interleaved++;
    if (previousActor !== undefined && previousActor !== actor) tally.switches++;
    previousActor = actor;
    const isWaiting = async () => {
      if (monitor === undefined) return false;
      if (actor.pids.length > 0) return monitor.isWaiting(actor.pids);
      return (await monitor.waiters(writerPids)).length > 0;
    };
    if ((await settledOrWaiting(tracked, isWaiting)) === "waiting") tally.waits++;
    throwFailure();
  }

  // A failed step (a check of a reader, or a writer's unexpected error) is the verdict: it ends the run.
  let failure: unknown;
  const throwFailure = () => {
    if (failure !== undefined) throw failure;
  };

  async function anyDone(): Promise<void> {
    const busy = [loader, ...writers, ...readerActors].flatMap((a) => (a.busy ? [a.busy] : []));
    if (busy.length > 0) await Promise.race(busy);
    throwFailure();
  }

  /** Ends every open transaction and waits for every step: the database is quiet. */
  async function drain(): Promise<void> {
    for (;;) {
      // Looked at again after every step: a step that finishes leaves its writer idle in a
      // transaction that the others may be waiting for.
      const idle = writers.find((w) => w.inTransaction && w.busy === undefined);
      if (idle !== undefined) {
        await start(idle, () => writerStep(idle, true));
        continue;
      }
      const busy = [loader, ...writers, ...readerActors].flatMap((a) => (a.busy ? [a.busy] : []));
      if (busy.length === 0) return;
      await Promise.race(busy);
      throwFailure();
    }
  }

  const deadline = Date.now() + seconds * 1_000;
  try {
    await sampleVersions();
    while (Date.now() < deadline) {
      const steps = rng.int(20, 80);
      for (let i = 0; i < steps && Date.now() < deadline; i++) {
        // The embedded database runs one transaction at a time: while one is open, only its writer goes on.
        const exclusive = onServer ? undefined : writers.find((w) => w.inTransaction);
        const idle = [
          ...writers
            .filter((w) => w.busy === undefined && (exclusive === undefined || exclusive === w))
            .map((w) => [() => start(w, () => writerStep(w, false)), 10] as const),
          ...(loader.busy === undefined && exclusive === undefined
            ? [[() => start(loader, loaderStep), 1] as const]
            : []),
          ...readerActors
            .filter((r) => r.busy === undefined && exclusive === undefined)
            .map(
              (r) =>
                [
                  () => {
                    if (openTransactions() > 0) tally.readsDuringWrites++;
                    return start(r, () => r.reader.step(context));
                  },
                  8,
                ] as const,
            ),
        ];
        if (idle.length === 0) {
          await anyDone();
          continue;
        }
        await rng.weighted(idle)();
        if (onServer || openTransactions() === 0) await sampleVersions();
      }
      await drain();
      tally.quietPoints++;
      await sampleVersions();
      for (const reader of readers) await reader.atQuietPoint(context);
      await checkCounts(e2e, fail);
    }
  } finally {
    await Promise.allSettled([loader, ...writers, ...readerActors].flatMap((a) => (a.busy ? [a.busy] : [])));
    for (const writer of writers) await writer.session.close();
    await loaderDb.close();
    await monitor?.close();
  }
  return tally;
}

/** Every team's kept counts, of its lists and of each status, equal its rows. */
async function checkCounts(e2e: E2eApp, fail: (message: string) => never): Promise<void> {
  const statuses = await statusCountMismatches(e2e.database.pool);
  if (statuses.length > 0) fail(`kept status counts differ from count(*): ${statuses.join("; ")}`);
  const { rows } = await e2e.database.pool.query<{ team: string; list: string; kept: number | null; counted: number }>(
    `SELECT t.id AS team, l.list, s.item_count::int AS kept,
            (CASE l.list WHEN 'events' THEN (SELECT count(*) FROM events e WHERE e.team_id = t.id)
                         ELSE (SELECT count(*) FROM guides g WHERE g.team_id = t.id) END)::int AS counted
       FROM teams t CROSS JOIN (VALUES ('events'), ('guides')) l(list)
       LEFT JOIN team_list_stats s ON s.team_id = t.id AND s.list = l.list`,
  );
  for (const row of rows) {
    if ((row.kept ?? 0) !== row.counted)
      fail(`${row.list}:${row.team}: kept count ${row.kept}, count(*) ${row.counted}`);
  }
}
