import { Pool } from "pg";
import { createTestDatabase, type TestDatabase } from "../testing";
import { EVENTS_LIST } from "./events.list";
import { listDeclarationMismatches } from "./list-declarations";
import { TEAM_LISTS } from "./lists";

describe(listDeclarationMismatches.name, () => {
  let testDb: TestDatabase;
  let pool: Pool;

  beforeEach(async () => {
    testDb = await createTestDatabase("list_declarations");
    pool = new Pool({ connectionString: testDb.url, max: 1 });
  });

  afterEach(async () => {
    await pool.end();
    await testDb.drop();
  });

  it("finds the migrated database's team_lists equal to TEAM_LISTS", async () => {
    expect(await listDeclarationMismatches(pool)).toEqual([]);
  });

  it("names a list whose sort key or status expression the database's triggers read differently", async () => {
    await pool.query("UPDATE team_lists SET sort_key = 'live_at' WHERE list = 'events'");
    await pool.query(
      "UPDATE team_lists SET status_sql = 'CASE WHEN published_at IS NULL THEN ''draft'' END' WHERE list = 'guides'",
    );
    expect(await listDeclarationMismatches(pool)).toEqual([
      expect.stringMatching(/^events: team_lists\.sort_key is live_at/),
      expect.stringMatching(/^guides: team_lists\.status_sql is CASE WHEN published_at IS NULL/),
    ]);
  });

  it("names a list declared on one side only", async () => {
    const tours = { ...EVENTS_LIST, list: "tours" };
    expect(await listDeclarationMismatches(pool, [...TEAM_LISTS, tours])).toEqual([
      "tours is in TEAM_LISTS but not in the database's team_lists",
    ]);
    await pool.query("INSERT INTO team_lists VALUES ('tours', 'starts_at', 'CASE WHEN true THEN ''open'' END')");
    expect(await listDeclarationMismatches(pool)).toEqual([
      "tours is in the database's team_lists but not in TEAM_LISTS",
    ]);
  });

  it("moves a third list's version when an account its items show is renamed, as it moves the declared lists'", async () => {
    // A third list declared like guides: its table, its team_lists row, and guides' triggers.
    await pool.query("CREATE TABLE talks (LIKE guides INCLUDING ALL)");
    await pool.query(
      "INSERT INTO team_lists SELECT 'talks', sort_key, status_sql FROM team_lists WHERE list = 'guides'",
    );
    const { rows: triggers } = await pool.query<{ definition: string }>(
      "SELECT pg_get_triggerdef(oid) AS definition FROM pg_trigger WHERE tgrelid = 'guides'::regclass AND NOT tgisinternal",
    );
    expect(triggers.length).toBeGreaterThan(0);
    for (const { definition } of triggers) await pool.query(definition.replaceAll("guides", "talks"));
    await pool.query("INSERT INTO teams (id, name) VALUES ('team_talks', 'Talks'), ('team_other', 'Other')");
    await pool.query(
      "INSERT INTO accounts (id, slug, name, partner) VALUES ('acc_speaker', 'speaker', 'Old Name', false), ('acc_other', 'other', 'Other', false)",
    );
    const talk = (id: string, team: string, account: string) =>
      pool.query(
        `INSERT INTO talks (id, team_id, account_id, slug, name, price_in_cents, currency)
         VALUES ($1, $2, $3, $4, $5, 0, 'USD')`,
        [id, team, account, id, id],
      );
    await talk("tk_1", "team_talks", "acc_speaker");
    await talk("tk_2", "team_other", "acc_other");
    const versions = async () =>
      (
        await pool.query<{ team_id: string; version: string }>(
          "SELECT team_id, version FROM team_list_stats WHERE list = 'talks' ORDER BY team_id",
        )
      ).rows;
    const before = await versions();
    expect(before.map((row) => row.team_id)).toEqual(["team_other", "team_talks"]);

    await pool.query("UPDATE accounts SET name = 'New Name' WHERE id = 'acc_speaker'");

    const after = await versions();
    // The team whose talk shows the account moved (its pages hold the old name); the other did not.
    expect(BigInt(after[1]?.version ?? "0")).toBeGreaterThan(BigInt(before[1]?.version ?? "0"));
    expect(after[0]?.version).toBe(before[0]?.version);
  });

  it("gives an undeclared list no other list's facts: the triggers' lookups refuse it, and its bookkeeping cannot be stored", async () => {
    await expect(pool.query("SELECT team_list_sort_key('tours')")).rejects.toThrow(
      /tours is not declared in team_lists/,
    );
    await expect(pool.query("SELECT team_list_status_sql('tours')")).rejects.toThrow(/tours is not declared/);
    await expect(
      pool.query("INSERT INTO team_list_stats (team_id, list, item_count, version) VALUES ('t', 'tours', 0, 0)"),
    ).rejects.toMatchObject({ code: "23503" });
  });
});
