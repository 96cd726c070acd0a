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
