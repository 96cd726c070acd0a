import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createDatabase, type Database } from "@community/db";
import { createTestDatabase, type TestDatabase, testDatabaseForSuite } from "@community/db/testing";
import { DEMO_TOKENS, demoFixture } from "@community/fixtures";
import { rowCounts, smallFixture, truncateAll } from "@community/fixtures/testing";
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE, main } from "./run-cli";

/** Runs the command in-process and collects what it writes. */
async function run(argv: string[], env: Record<string, string | undefined>) {
  let stdout = "";
  let stderr = "";
  const code = await main(argv, env, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
  });
  return { code, stdout, stderr };
}

describe("seed command (main)", () => {
  let testDb: TestDatabase;
  let db: Database;
  let dir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    testDb = await createTestDatabase("seed_cli");
    db = createDatabase({ url: testDb.url, poolMax: 2 });
    env = { DATABASE_URL: testDb.url };
    dir = await mkdtemp(path.join(tmpdir(), "seed-cli-"));
  });

  afterAll(async () => {
    await db?.close();
    await testDb?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  beforeEach(async () => {
    await truncateAll(db.prisma);
  });

  const writeJson = async (name: string, content: unknown) => {
    const file = path.join(dir, name);
    await writeFile(file, typeof content === "string" ? content : JSON.stringify(content, null, 2));
    return file;
  };

  describe("usage", () => {
    it("prints the help with --help and exits 0", async () => {
      const result = await run(["--help"], {});
      expect(result.code).toBe(EXIT_OK);
      expect(result.stdout).toContain("Usage: community-seed (--file <path> | --demo)");
      expect(result.stdout).toContain("DATABASE_URL");
    });

    it.each([
      [["--fiel", "x.json"], /Unknown option '--fiel'/],
      [["extra"], /Unexpected argument 'extra'/],
      [[], /exactly one of --file <path> and --demo/],
      [["--demo", "--file", "x.json"], /exactly one of --file <path> and --demo/],
      [["--file"], /--file/],
    ])("rejects %j with exit code 2", async (argv, message) => {
      const result = await run(argv, env);
      expect(result.code).toBe(EXIT_USAGE);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).toContain("Usage:");
    });

    it.each([
      [{}, /DATABASE_URL is not set/],
      [{ DATABASE_URL: "" }, /DATABASE_URL is not set/],
      [{ DATABASE_URL: "not a url" }, /DATABASE_URL is not a valid URL/],
      [{ DATABASE_URL: "mysql://localhost/db" }, /DATABASE_URL must start with postgresql:\/\//],
    ])("names DATABASE_URL when it is missing or wrong (%j) and exits 2", async (badEnv, message) => {
      const result = await run(["--demo"], badEnv);
      expect(result.code).toBe(EXIT_USAGE);
      expect(result.stderr).toMatch(message);
    });

    it("exits 2 when the fixture file cannot be read", async () => {
      const result = await run(["--file", path.join(dir, "missing.json")], env);
      expect(result.code).toBe(EXIT_USAGE);
      expect(result.stderr).toMatch(/cannot read fixture file .*missing\.json: ENOENT/);
    });
  });

  it("loads a fixture file and prints the count of each collection", async () => {
    const file = await writeJson("small.json", smallFixture());

    const result = await run(["--file", file], env);

    expect(result).toMatchObject({ code: EXIT_OK, stderr: "" });
    expect(result.stdout).toContain(`Loaded ${file} into`);
    expect(result.stdout).toMatch(/access_tokens: 3\n/);
    expect(result.stdout).toMatch(/events: +3\n/);
    expect(await rowCounts(db.prisma)).toMatchObject({ events: 3, guides: 2, access_tokens: 3 });
  });

  it("prints every issue of an invalid file as '  <path>: <message>', exits 1 and writes nothing", async () => {
    const fixture = smallFixture();
    (fixture.events[0] as { price: { currency: string } }).price.currency = "ABC";
    (fixture.guides[1] as { published_at: string | null }).published_at = "2026-03-01T18:30:00+01:00";
    fixture.users.push({ id: "user_9", name: "Lost", team_id: "team_9" });
    const file = await writeJson("invalid.json", fixture);

    const result = await run(["--file", file], env);

    expect(result.code).toBe(EXIT_FAILURE);
    expect(result.stderr).toContain("is not a valid fixture (2 issues); nothing was written");
    expect(result.stderr).toContain(
      "\n  events[0].price.currency: must be an upper-case ISO 4217 currency code such as USD, EUR or JPY\n",
    );
    expect(result.stderr).toContain(
      "\n  guides[1].published_at: must be a UTC timestamp of the form YYYY-MM-DDTHH:MM:SSZ\n",
    );
    expect(await rowCounts(db.prisma)).toMatchObject({ accounts: 0, users: 0, events: 0 });
  });

  it("reports references that the database cannot resolve the same way", async () => {
    const fixture = smallFixture();
    fixture.users.push({ id: "user_9", name: "Lost", team_id: "team_9" });
    const file = await writeJson("dangling.json", fixture);

    const result = await run(["--file", file], env);

    expect(result.code).toBe(EXIT_FAILURE);
    expect(result.stderr).toContain(
      '\n  users[2].team_id: refers to team "team_9", which is neither in the file nor in the database\n',
    );
    expect(await db.prisma.account.count()).toBe(0);
  });

  it("reports a JSON syntax error at path $ with its line and column", async () => {
    const file = await writeJson("broken.json", '{\n  "accounts": [],\n}\n');

    const result = await run(["--file", file], env);

    expect(result.code).toBe(EXIT_FAILURE);
    expect(result.stderr).toMatch(/\n {2}\$: is not valid JSON: .* at line 3, column 1\n/);
  });

  it("loads the demo data with --demo and prints the demo tokens", async () => {
    const result = await run(["--demo"], env);

    expect(result.code).toBe(EXIT_OK);
    expect(result.stdout).toContain(`events:        ${demoFixture().events.length}`);
    for (const demo of Object.values(DEMO_TOKENS)) {
      expect(result.stdout).toContain(demo.token);
    }
    expect(await db.prisma.team.count()).toBe(3);
  });

  it("does not print the password of DATABASE_URL", async () => {
    const url = new URL(testDb.url);
    url.password = "hunter2";
    const result = await run(["--demo"], { DATABASE_URL: url.toString() });
    expect(result.code).toBe(EXIT_OK);
    expect(result.stdout + result.stderr).not.toContain("hunter2");
  });

  it("exits 1 when the database cannot be reached", async () => {
    const result = await run(["--demo"], { DATABASE_URL: "postgresql://postgres@127.0.0.1:1/nowhere" });

    expect(result.code).toBe(EXIT_FAILURE);
    expect(result.stderr).toMatch(/cannot reach the database 127\.0\.0\.1:1\/nowhere \(DATABASE_URL\)/);
  });

  describe("on a database without migrations", () => {
    const empty = testDatabaseForSuite("seed_cli_unmigrated", { empty: true });

    it("says to run pnpm db:migrate and exits 1", async () => {
      const result = await run(["--demo"], { DATABASE_URL: empty.url });

      expect(result.code).toBe(EXIT_FAILURE);
      expect(result.stderr).toMatch(/pending migration\(s\) \(\d{14}_init.*\); run `pnpm db:migrate` first/);
    });
  });
});
