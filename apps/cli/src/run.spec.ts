import { EXIT } from "./exit-codes";
import { run, TOKEN_ENV } from "./run";

function io(fetch: typeof globalThis.fetch = () => Promise.reject(new Error("no request expected")), env = {}) {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: { stdout: { write: (s: string) => out.push(s) }, stderr: { write: (s: string) => err.push(s) }, env, fetch },
    stdout: () => out.join(""),
    stderr: () => err.join(""),
  };
}

const problem = (status: number, type: string, detail: string) =>
  new Response(
    JSON.stringify({ type: `https://x.test/problems/${type}`, title: type, status, detail, instance: "/" }),
    {
      status,
      headers: { "content-type": "application/problem+json" },
    },
  );

describe(run.name, () => {
  it("asks for a token when neither --token nor the environment gives one", async () => {
    const t = io();
    expect(await run(["events"], t.io)).toBe(EXIT.usage);
    expect(t.stderr()).toContain(`pass --token <token> or set ${TOKEN_ENV}`);
  });

  it("rejects an unknown format and --page together with --all", async () => {
    const t = io();
    expect(await run(["events", "--token", "x", "--format", "xml"], t.io)).toBe(EXIT.usage);
    expect(t.stderr()).toMatch(/Allowed choices are table, json, csv/);
    expect(await run(["guides", "--token", "x", "--all", "--page", "2"], t.io)).toBe(EXIT.usage);
    expect(t.stderr()).toContain("--page and --all exclude each other");
  });

  it("explains a 401 and exits with its own code", async () => {
    const t = io(async () => problem(401, "unauthorized", "The access token is not valid"));
    expect(await run(["events", "--token", "nope"], t.io)).toBe(EXIT.unauthorized);
    expect(t.stderr()).toBe("error: 401 Unauthorized: The access token is not valid. Check the token (--token).\n");
    expect(t.stdout()).toBe("");
  });

  it("explains a 404 from a user without a team", async () => {
    const t = io(
      async () => problem(404, "no-community-team", "The authenticated user is not a member of a community team"),
      {
        [TOKEN_ENV]: "tok",
      },
    );
    expect(await run(["guides"], t.io)).toBe(EXIT.notFound);
    expect(t.stderr()).toContain("404 Not found: The authenticated user is not a member of a community team");
  });

  it("explains a network failure", async () => {
    const t = io(() => Promise.reject(new TypeError("fetch failed", { cause: { code: "ECONNREFUSED" } })));
    expect(await run(["events", "--token", "x", "--base-url", "http://127.0.0.1:9"], t.io)).toBe(EXIT.network);
    expect(t.stderr()).toMatch(/cannot reach .*ECONNREFUSED.*Is the api running at http:\/\/127\.0\.0\.1:9\?/);
  });
});
