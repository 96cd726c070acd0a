import type { Event } from "@community/domain";
import {
  compiledApiForSuite,
  contractEventOrder,
  LARGE_TEAM_EVENTS,
  LARGE_TEAM_TOKEN,
  largeTeamFixture,
  TOKENS,
} from "@community/fixtures/testing";
import { EXIT, run, TOKEN_ENV } from "./index";

const fixture = largeTeamFixture();

describe("@community/cli against the running api", () => {
  const api = compiledApiForSuite("cli", fixture);

  const cli = async (argv: string[], env: NodeJS.ProcessEnv = {}, tty = false) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await run([...argv, "--base-url", api.baseUrl], {
      stdout: { write: (s: string) => out.push(s) },
      stderr: { write: (s: string) => err.push(s), isTTY: tty },
      env,
    });
    return { code, stdout: out.join(""), stderr: err.join("") };
  };

  it("writes every event of a large team as CSV with --all, in order, with progress on a terminal", async () => {
    const result = await cli(["events", "--all", "--format", "csv"], { [TOKEN_ENV]: LARGE_TEAM_TOKEN }, true);
    expect(result.code).toBe(EXIT.ok);
    const lines = result.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^id,slug,name,scheduled_at,/);
    expect(lines.slice(1).map((line) => line.split(",")[0])).toEqual(
      contractEventOrder(fixture.events.filter((e) => e.team_id === "team_large")),
    );
    // "page 13 (1234)" in cursor mode; "page 13/13 (1234/1234)" from an api without it.
    expect(result.stderr).toMatch(
      new RegExp(`events: page 13(/13)? \\(${LARGE_TEAM_EVENTS}(/${LARGE_TEAM_EVENTS})?\\)`),
    );
  });

  it("creates, lists, rotates and deletes calendar feeds (calendar-feeds create|list|rotate|delete)", async () => {
    const env = { [TOKEN_ENV]: TOKENS.runner };
    const created = await cli(["calendar-feeds", "create", "--name", "Phone", "--format", "json"], env);
    expect(created.code).toBe(EXIT.ok);
    const [feed] = JSON.parse(created.stdout) as Array<{ id: string; name: string; url: string; webcal_url: string }>;
    expect(feed).toMatchObject({
      name: "Phone",
      url: expect.stringMatching(/\/v1\/calendar-feeds\/cal_[A-Za-z0-9_-]{43}\.ics$/),
    });
    const listed = await cli(["calendar-feeds", "list", "--format", "csv"], env);
    expect(listed.code).toBe(EXIT.ok);
    expect(listed.stdout).toContain(feed?.id as string);
    expect(listed.stdout).not.toContain(/cal_[A-Za-z0-9_-]{43}/.exec(feed?.url ?? "")?.[0] as string);
    const rotated = await cli(["calendar-feeds", "rotate", feed?.id as string, "--format", "json"], env);
    expect(JSON.parse(rotated.stdout)[0].url).not.toBe(feed?.url);
    expect((await cli(["calendar-feeds", "delete", feed?.id as string], env)).code).toBe(EXIT.ok);
    const gone = await cli(["calendar-feeds", "delete", feed?.id as string], env);
    expect(gone.code).not.toBe(EXIT.ok);
    expect(gone.stderr).toMatch(/calendar feed/i);
  });

  it("keeps stderr free of progress when it is not a terminal, and writes the api's items as JSON", async () => {
    const result = await cli(["events", "--all", "--per-page", "7", "--format", "json", "--token", TOKENS.runner]);
    expect(result.code).toBe(EXIT.ok);
    expect(result.stderr).toBe("");
    const events = JSON.parse(result.stdout) as Event[];
    expect(events).toHaveLength(23);
    expect(new Set(events.map((e) => e.id)).size).toBe(23);
  });

  it("shows one page of guides as a table", async () => {
    const result = await cli(["guides", "--page", "2", "--per-page", "5", "--token", TOKENS.runner]);
    expect(result.code).toBe(EXIT.ok);
    const lines = result.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^ID\s+NAME\s+PUBLISHED_AT\s+PRICE\s+ACCOUNT_SLUG$/);
    expect(lines).toHaveLength(6);
  });

  it("explains a rejected token and a user without a team with their exit codes", async () => {
    const unauthorized = await cli(["events", "--token", "not-a-token"]);
    expect(unauthorized.code).toBe(EXIT.unauthorized);
    expect(unauthorized.stderr).toMatch(/^error: 401 Unauthorized: The access token is not valid\. Check the token/);

    const noTeam = await cli(["guides", "--all"], { [TOKEN_ENV]: TOKENS.noTeam });
    expect(noTeam.code).toBe(EXIT.notFound);
    expect(noTeam.stderr).toMatch(/404 Not found: The authenticated user is not a member of a community team/);
    expect(noTeam.stdout).toBe("");
  });

  it("prints the token of now, then no changes since it, and refuses an altered token", async () => {
    const start = await cli(["changes", "guides", "--token", TOKENS.runner]);
    expect(start.code).toBe(EXIT.ok);
    const token = /^next: (\S+)$/m.exec(start.stdout)?.[1] ?? "";
    expect(token).not.toBe("");

    const quiet = await cli(["changes", "guides", "--since", token, "--format", "json", "--token", TOKENS.runner]);
    expect(quiet.code).toBe(EXIT.ok);
    expect(JSON.parse(quiet.stdout)).toMatchObject({ changes: [] });

    const altered = await cli(["changes", "guides", "--since", `${token}x`, "--token", TOKENS.runner]);
    expect(altered.code).toBe(EXIT.failure);
    expect(altered.stderr).toMatch(/^error: HTTP 400: .*since/);
  });
});
