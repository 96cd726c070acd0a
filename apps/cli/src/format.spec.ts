import { wireEvent } from "@community/domain/testing";
import { EVENT_COLUMNS } from "./columns";
import { formatItems } from "./format";

describe(formatItems.name, () => {
  it("writes RFC 4180 CSV: a header row, quotes around commas, quotes and line breaks, doubled quotes", () => {
    const csv = formatItems([wireEvent({ name: 'Run, "fast"', description: "line 1\nline 2" })], "csv", EVENT_COLUMNS);
    const [header, ...rest] = csv.split("\n");
    expect(header).toBe(EVENT_COLUMNS.map((c) => c.header).join(","));
    expect(rest.join("\n")).toBe(
      'ev_1,spring-run,"Run, ""fast""",2026-03-01T18:30:00Z,3600,,,,false,"line 1\nline 2",,19.99 USD,19.99,1999,USD,acc_1,jane,Jane,true,,\n',
    );
  });

  it("writes only the header row of a CSV with no items", () => {
    expect(formatItems([], "csv", EVENT_COLUMNS)).toBe(`${EVENT_COLUMNS.map((c) => c.header).join(",")}\n`);
  });

  it("writes JSON that reads back to the same items", () => {
    const items = [wireEvent(), wireEvent({ id: "ev_2", live_at: "2026-03-01T18:31:00Z" })];
    expect(JSON.parse(formatItems(items, "json", EVENT_COLUMNS))).toEqual(items);
  });

  it("aligns the table's columns, shows null as - and shortens long cells", () => {
    const table = formatItems(
      [wireEvent(), wireEvent({ id: "ev_10", name: "x".repeat(60), canceled_at: "2026-02-01T00:00:00Z" })],
      "table",
      EVENT_COLUMNS,
    );
    const lines = table.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^ID\s+NAME\s+SCHEDULED_AT\s+CANCELED_AT\s+PRICE\s+ACCOUNT_SLUG$/);
    expect(lines[1]).toMatch(/^ev_1 {3}Spring run\s+2026-03-01T18:30:00Z\s+- {2}/);
    expect(lines[2]).toContain(`${"x".repeat(39)}…`);
    // every row starts its second column at the same offset
    expect(new Set(lines.map((l) => l.search(/(?<=^\S+\s+)\S/))).size).toBe(1);
  });
});
