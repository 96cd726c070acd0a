import { wireEvent } from "@community/domain/testing";
import { FakeCommunityApi } from "@community/fixtures/testing";
import { EXIT } from "./exit-codes";
import { run } from "./run";

const TOKEN = "fake-token";

describe("the CLI's filters and changes command against a fake of contract section 9", () => {
  let api: FakeCommunityApi;

  const cli = async (argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await run([...argv, "--token", TOKEN, "--base-url", api.url], {
      stdout: { write: (s: string) => out.push(s) },
      stderr: { write: (s: string) => err.push(s) },
      env: {},
    });
    return { code, stdout: out.join(""), stderr: err.join("") };
  };
  const queries = () => api.requests.map((r) => Object.fromEntries(new URL(r.url, api.url).searchParams));

  beforeEach(async () => {
    api = await FakeCommunityApi.start(TOKEN);
    api.upsert(
      "events",
      wireEvent({ id: "ev_1", scheduled_at: "2026-03-01T10:00:00Z" }),
      wireEvent({ id: "ev_2", scheduled_at: "2026-04-01T10:00:00Z", canceled_at: "2026-03-20T00:00:00Z" }),
      wireEvent({ id: "ev_3", scheduled_at: "2026-05-01T10:00:00Z", canceled_at: "2026-03-20T00:00:00Z" }),
    );
  });
  afterEach(async () => {
    await api.close();
  });

  it("walks with cursors and passes --status and the scheduled window on every request", async () => {
    const line =
      "events --all --per-page 1 --status canceled,live --scheduled-from 2026-03-15T00:00:00Z --scheduled-to 2026-06-01T00:00:00+02:00 --format json";
    const result = await cli(line.split(" "));
    expect(result.code).toBe(EXIT.ok);
    expect((JSON.parse(result.stdout) as Array<{ id: string }>).map((e) => e.id)).toEqual(["ev_2", "ev_3"]);
    expect(queries()[0]).toEqual({
      cursor: "",
      per_page: "1",
      status: "canceled,live",
      scheduled_from: "2026-03-15T00:00:00Z",
      scheduled_to: "2026-06-01T00:00:00+02:00",
    });
    expect(queries().every((q) => q.status === "canceled,live" && q.cursor !== undefined)).toBe(true);
  });

  it("passes the guides' status and published window", async () => {
    const line =
      "guides --status published --published-from 2026-01-01T00:00:00Z --published-to 2026-12-31T00:00:00.5Z";
    const result = await cli(line.split(" "));
    expect(result.code).toBe(EXIT.ok);
    expect(queries()[0]).toEqual({
      status: "published",
      published_from: "2026-01-01T00:00:00Z",
      published_to: "2026-12-31T00:00:00.5Z",
    });
  });

  it.each([
    [["events", "--status", "done"], "--status takes a comma-separated list of scheduled, live, completed, canceled"],
    [["events", "--status", ""], "--status takes a comma-separated list"],
    [["guides", "--status", "canceled"], "--status takes a comma-separated list of draft, published"],
    [["events", "--scheduled-from", "2026-03-01"], "must be an RFC 3339 date-time"],
    [["guides", "--published-to", "2026-03-01T00:00:00"], "must be an RFC 3339 date-time"],
    [["events", "--published-from", "2026-03-01T00:00:00Z"], "unknown option '--published-from'"],
  ])("refuses %j with the usage code and no request", async (argv, message) => {
    const result = await cli(argv);
    expect(result.code).toBe(EXIT.usage);
    expect(result.stderr).toContain(message);
    expect(api.requests).toEqual([]);
  });

  it("prints the token of now, then the changes since it and the next token", async () => {
    const start = await cli(["changes", "events"]);
    expect(start.code).toBe(EXIT.ok);
    const token = /^next: (\S+)$/m.exec(start.stdout)?.[1];
    expect(token).toBeDefined();

    api.upsert("events", wireEvent({ id: "ev_1", name: "Renamed run" }));
    api.remove("events", "ev_2");
    api.upsert("events", wireEvent({ id: "ev_4" }));
    const table = await cli(["changes", "events", "--since", token ?? "", "--per-page", "2"]);
    expect(table.code).toBe(EXIT.ok);
    const lines = table.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^OP\s+ID\s+NAME\s+SCHEDULED_AT/);
    expect(lines.slice(1, 4).map((line) => line.split(/\s+/).slice(0, 2))).toEqual([
      ["upsert", "ev_1"],
      ["delete", "ev_2"],
      ["upsert", "ev_4"],
    ]);
    expect(lines[1]).toContain("Renamed run");
    expect(lines[4]).toMatch(/^next: \S+$/);

    const json = await cli(["changes", "events", "--since", token ?? "", "--format", "json"]);
    const body = JSON.parse(json.stdout) as { changes: Array<{ op: string; id: string }>; next: string };
    expect(body.changes.map((c) => `${c.op} ${c.id}`)).toEqual(["upsert ev_1", "delete ev_2", "upsert ev_4"]);
    expect(`next: ${body.next}`).toBe(lines[4]);

    const csv = await cli(["changes", "events", "--since", token ?? "", "--format", "csv"]);
    expect(csv.stdout.split("\n")[0]).toMatch(/^op,id,slug,name,/);
    expect(csv.stderr).toBe(`${lines[4]}\n`);
  });

  it("says that an expired token needs a full walk, with its own exit code", async () => {
    const start = await cli(["changes", "guides"]);
    const token = /^next: (\S+)$/m.exec(start.stdout)?.[1] ?? "";
    api.expireTokens("guides");
    const result = await cli(["changes", "guides", "--since", token]);
    expect(result.code).toBe(EXIT.syncExpired);
    expect(result.stderr).toMatch(/^error: 410 Gone: the token has expired\. Start again without --since/);
  });
});
