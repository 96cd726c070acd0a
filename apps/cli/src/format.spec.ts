import { wireEvent } from "@community/domain/testing";
import { EVENT_COLUMNS } from "./columns";
import { createItemWriter, formatItems, loadMeasureWidth, type MeasureWidth } from "./format";

describe(formatItems.name, () => {
  let width: MeasureWidth;
  beforeAll(async () => {
    width = await loadMeasureWidth();
  });

  it("writes RFC 4180 CSV: a header row, quotes around commas, quotes and line breaks, doubled quotes", () => {
    const csv = formatItems(
      [wireEvent({ name: 'Run, "fast"', description: "line 1\nline 2" })],
      "csv",
      EVENT_COLUMNS,
      width,
    );
    const [header, ...rest] = csv.split("\n");
    expect(header).toBe(EVENT_COLUMNS.map((c) => c.header).join(","));
    expect(rest.join("\n")).toBe(
      'ev_1,spring-run,"Run, ""fast""",2026-03-01T18:30:00Z,3600,,,,false,"line 1\nline 2",,19.99 USD,19.99,1999,USD,acc_1,jane,Jane,true,,\n',
    );
  });

  it("writes only the header row of a CSV with no items", () => {
    expect(formatItems([], "csv", EVENT_COLUMNS, width)).toBe(`${EVENT_COLUMNS.map((c) => c.header).join(",")}\n`);
  });

  it("writes JSON that reads back to the same items", () => {
    const items = [wireEvent(), wireEvent({ id: "ev_2", live_at: "2026-03-01T18:31:00Z" })];
    expect(JSON.parse(formatItems(items, "json", EVENT_COLUMNS, width))).toEqual(items);
  });

  it("aligns the table's columns, shows null as - and shortens long cells", () => {
    const table = formatItems(
      [wireEvent(), wireEvent({ id: "ev_10", name: "x".repeat(60), canceled_at: "2026-02-01T00:00:00Z" })],
      "table",
      EVENT_COLUMNS,
      width,
    );
    const lines = table.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^ID\s+NAME\s+SCHEDULED_AT\s+CANCELED_AT\s+PRICE\s+ACCOUNT_SLUG$/);
    expect(lines[1]).toMatch(/^ev_1 {3}Spring run\s+2026-03-01T18:30:00Z\s+- {2}/);
    expect(lines[2]).toContain(`${"x".repeat(39)}…`);
    // every row starts its second column at the same offset
    expect(new Set(lines.map((l) => l.search(/(?<=^\S+\s+)\S/))).size).toBe(1);
  });

  it("aligns wide characters by their display width, and cuts long ones on whole characters", () => {
    const table = formatItems(
      [
        wireEvent({ id: "ev_1", name: "東京マラソン" }),
        wireEvent({ id: "ev_2", name: "Tokyo" }),
        wireEvent({ id: "ev_3", name: "走".repeat(30) }),
      ],
      "table",
      EVENT_COLUMNS,
      width,
    );
    const lines = table.trimEnd().split("\n");
    // The third column starts at the same terminal column on every row.
    const third = lines.map((line) => width(line.slice(0, line.search(/2026-03-01T18:30:00Z|SCHEDULED_AT/))));
    expect(new Set(third).size).toBe(1);
    expect(lines[3]).toContain(`${"走".repeat(19)}…`);
  });

  it("escapes control characters in every format, so that a terminal shows them instead of obeying them", () => {
    const hostile = wireEvent({ name: "\u001b]0;pwned\u0007\u001b[2J\u009b31m\u202eevil", description: "a\rb" });
    const table = formatItems([hostile], "table", EVENT_COLUMNS, width);
    const csv = formatItems([hostile], "csv", EVENT_COLUMNS, width);
    const json = formatItems([hostile], "json", EVENT_COLUMNS, width);
    for (const output of [table, csv, json]) {
      expect(output).not.toMatch(/(?!\n)[\p{Cc}\p{Bidi_Control}]/u);
    }
    expect(table).toContain("\\u001b]0;pwned\\u0007\\u001b[2J\\u009b31m");
    expect(csv).toContain("a\\u000db");
    // The same data once parsed: JSON escapes are not a change of value.
    expect(json).toContain("\\u009b31m\\u202eevil");
    expect(JSON.parse(json)).toEqual([hostile]);
  });

  it("writes no CSV field that a spreadsheet would run as a formula", () => {
    const csv = formatItems(
      [
        wireEvent({
          name: '=HYPERLINK("http://evil.test","click")',
          slug: "+1",
          description: "@SUM(A1)",
          cover_url: "-2+3",
        }),
      ],
      "csv",
      EVENT_COLUMNS,
      width,
    );
    const row = csv.split("\n")[1] ?? "";
    expect(row).toContain(`"'=HYPERLINK(""http://evil.test"",""click"")"`);
    expect(row).toContain(",'+1,");
    expect(row).toContain(",'@SUM(A1),");
    expect(row).toContain(",'-2+3,");
  });

  it.each(["csv", "json", "table"] as const)("writes %s page by page exactly as all at once", (format) => {
    const pages = [
      [],
      [wireEvent({ id: "ev_1" }), wireEvent({ id: "ev_2", name: "東京" })],
      [],
      [wireEvent({ id: "ev_3" })],
    ];
    const chunks: string[] = [];
    const writer = createItemWriter(format, EVENT_COLUMNS, width, { write: (text: string) => chunks.push(text) });
    for (const page of pages) writer.write(page);
    writer.end();
    expect(chunks.join("")).toBe(formatItems(pages.flat(), format, EVENT_COLUMNS, width));
    // Streamed: one write per page that has items, not one at the end.
    if (format !== "table") expect(chunks.length).toBeGreaterThan(1);

    const empty: string[] = [];
    const none = createItemWriter(format, EVENT_COLUMNS, width, { write: (text: string) => empty.push(text) });
    none.write([]);
    none.end();
    expect(empty.join("")).toBe(formatItems([], format, EVENT_COLUMNS, width));
  });
});
