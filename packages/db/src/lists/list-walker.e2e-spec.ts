import { Pool } from "pg";
import { createTestDatabase, type TestDatabase } from "../testing";
import { EVENTS_LIST } from "./events.list";
import { GUIDES_LIST } from "./guides.list";
import { TeamListWalker } from "./list-walker";
import type { AnyTeamList, KeysetPosition, ListFilters, Queryable } from "./team-list";

const TEAM = "team_a";
const SIZE = 4_000;

interface PlanNode {
  "Node Type": string;
  "Index Name"?: string;
  "Index Cond"?: string;
  "Actual Rows": number;
  "Rows Removed by Filter"?: number;
  Plans?: PlanNode[];
}

const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)];

// A cursor page costs the same at any depth (contract 9.1): its statement seeks in the list's
// index to the cursor and reads about one page of entries there, whatever comes before the cursor
// (ties on its key included), with no scan or sort of the team's items. Held on the executed
// plan's row counts, not on timings.
describe(`${TeamListWalker.name} plans`, () => {
  let testDb: TestDatabase;
  let pool: Pool;
  let sent: { text: string; values: unknown[] } | undefined;
  const recording: Queryable = {
    query(text, values) {
      sent = { text, values };
      return pool.query(text, values);
    },
  };

  beforeAll(async () => {
    testDb = await createTestDatabase("list_walker_plans");
    pool = new Pool({ connectionString: testDb.url, max: 2 });
    pool.on("error", () => undefined);
    await pool.query("INSERT INTO accounts (id, slug, name, partner) VALUES ('acc_1', 'one', 'One', false)");
    await pool.query("INSERT INTO teams (id, name) VALUES ('team_a', 'A'), ('team_b', 'B')");
    // Two teams, three items per instant (ties), one event in eleven canceled, one guide in four a draft.
    for (const team of [TEAM, "team_b"]) {
      await pool.query(
        `INSERT INTO events (id, team_id, account_id, slug, name, duration_seconds, scheduled_at, canceled_at,
                             offer_replay_purchase, price_in_cents, currency)
         SELECT $1 || '_ev_' || lpad(i::text, 6, '0'), $1, 'acc_1', 'ev-' || i, 'Event', 60,
                timestamptz '2027-01-01' - (i / 3) * interval '1 minute',
                CASE WHEN i % 11 = 0 THEN timestamptz '2027-01-01' END, false, 0, 'USD'
           FROM generate_series(0, $2 - 1) i`,
        [team, SIZE],
      );
      await pool.query(
        `INSERT INTO guides (id, team_id, account_id, slug, name, published_at, price_in_cents, currency)
         SELECT $1 || '_gd_' || lpad(i::text, 6, '0'), $1, 'acc_1', 'gd-' || i, 'Guide',
                CASE WHEN i % 4 <> 0 THEN timestamptz '2027-01-01' - (i / 3) * interval '1 minute' END, 0, 'USD'
           FROM generate_series(0, $2 - 1) i`,
        [team, SIZE],
      );
    }
    await pool.query("ANALYZE");
  });

  afterAll(async () => {
    await pool?.end();
    await testDb?.drop();
  });

  /** The walk's own statement at the page after `after`, executed under EXPLAIN ANALYZE. */
  async function planOf(spec: AnyTeamList, filters: ListFilters, after: KeysetPosition | undefined) {
    const walker = new TeamListWalker<{ id: string }, unknown>(recording, spec);
    const page = await walker.keysetPage(TEAM, filters, after, 100);
    const statement = sent as { text: string; values: unknown[] };
    const { rows } = await pool.query<{ "QUERY PLAN": Array<{ Plan: PlanNode }> }>(
      `EXPLAIN (ANALYZE, FORMAT JSON) ${statement.text}`,
      statement.values,
    );
    const plan = rows[0]?.["QUERY PLAN"][0]?.Plan as PlanNode;
    // The scan that feeds the page's LIMIT, and what lies between them.
    const limit = nodes(plan).find((node) => node["Node Type"] === "Limit") as PlanNode;
    return { page, below: nodes(limit).slice(1) };
  }

  /** The position the walk hands out after `depth` items (pages of 100), read from the list's own order. */
  async function positionAt(spec: AnyTeamList, filters: ListFilters, depth: number): Promise<KeysetPosition> {
    const status = filters.status?.[0];
    const { rows } = await pool.query<{ key: string; id: string }>(
      `SELECT ${spec.sortKey}::text AS key, t.id FROM ${spec.list} t
        WHERE t.team_id = $1 ${status === undefined ? "" : `AND ${spec.filters.status[status]}`}
        ORDER BY ${spec.sortKey} DESC, t.id OFFSET $2 LIMIT 100`,
      [TEAM, depth - 100],
    );
    const [first, last] = [rows[0], rows.at(-1)] as [{ key: string }, { key: string; id: string }];
    return first.key === last.key ? { key: last.key, id: last.id, ties: true } : { key: last.key, id: last.id };
  }

  it.each<[string, AnyTeamList, ListFilters, string]>([
    ["events", EVENTS_LIST, {}, "events_team_list_idx"],
    ["canceled events", EVENTS_LIST, { status: ["canceled"] }, "events_team_status_idx"],
    ["guides", GUIDES_LIST, {}, "guides_team_list_key_idx"],
    ["draft guides", GUIDES_LIST, { status: ["draft"] }, "guides_team_list_key_idx"],
  ])(
    "seeks to the cursor of %s and reads about one page of index entries, at the start, among ties and deep",
    async (_, spec, filters, index) => {
      const matching = filters.status === undefined ? SIZE : await positionCount(spec, filters);
      // 600: among the 1,000 drafts that lead the guides, which all share the key infinity.
      for (const depth of [undefined, 100, 600, Math.floor(matching / 2), matching - 50].filter(
        (d) => (d ?? 0) < matching,
      )) {
        const after = depth === undefined ? undefined : await positionAt(spec, filters, depth);
        const { page, below } = await planOf(spec, filters, after);
        expect(page.items.length).toBe(Math.min(100, depth === undefined ? matching : matching - depth));
        const scans = below.filter((node) => node["Index Name"] !== undefined);
        const read = scans.reduce((sum, node) => sum + node["Actual Rows"] + (node["Rows Removed by Filter"] ?? 0), 0);
        expect({
          depth,
          indexes: [...new Set(scans.map((node) => node["Index Name"]))],
          tableScans: below.filter((node) => node["Node Type"] === "Seq Scan").length,
        }).toEqual({ depth, indexes: [index], tableScans: 0 });
        // The page and the probe for the next (101), after a few ties, or from each of two seeks
        // past a key that a whole page shared: never the items before the cursor.
        const most = after?.ties ? 2 * 101 : 101 + 3;
        expect({ depth, ties: after?.ties, read: Math.min(read, most) }).toEqual({ depth, ties: after?.ties, read });
      }
    },
  );

  it("marks the position after a page that was all one key, and only such a one", async () => {
    const walker = new TeamListWalker<{ id: string }, unknown>(pool, GUIDES_LIST as AnyTeamList);
    const marks: Array<boolean | undefined> = [];
    let after: KeysetPosition | undefined;
    for (let page = 0; page < 12; page++) {
      after = (await walker.keysetPage(TEAM, {}, after, 100)).next;
      marks.push(after?.ties);
    }
    // The first 1,000 guides are drafts (key infinity), then three share each minute.
    expect(marks).toEqual([...Array(10).fill(true), undefined, undefined]);
  });

  async function positionCount(spec: AnyTeamList, filters: ListFilters): Promise<number> {
    const { rows } = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${spec.list} t WHERE t.team_id = $1 AND ${spec.filters.status[filters.status?.[0] as string]}`,
      [TEAM],
    );
    return rows[0]?.n ?? 0;
  }
});
