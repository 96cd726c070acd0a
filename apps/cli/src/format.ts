import { stringify } from "csv-stringify/sync";
import type { Cell, Column } from "./columns";
import { escapeControls, escapeControlsKeepingLines, escapeJsonControls } from "./sanitize";

export const FORMATS = ["table", "json", "csv"] as const;
export type Format = (typeof FORMATS)[number];

/** Display width of a string in terminal columns (string-width: East Asian wide, emoji, combining marks). */
export type MeasureWidth = (text: string) => number;

const MAX_CELL_WIDTH = 40;

/**
 * The items as the chosen format, ending with a newline (nothing at all for an empty table/CSV
 * body). Nothing in the output is a terminal control sequence or a spreadsheet formula.
 */
export function formatItems<T>(items: T[], format: Format, columns: Column<T>[], width: MeasureWidth): string {
  switch (format) {
    case "json":
      return `${escapeJsonControls(JSON.stringify(items, null, 2))}\n`;
    case "csv":
      return formatCsv(items, columns);
    case "table":
      return formatTable(
        items,
        columns.filter((c) => c.inTable),
        width,
      );
  }
}

/**
 * RFC 4180 CSV with a header row; null is an empty field, booleans are true/false. A field that a
 * spreadsheet would read as a formula (=, +, -, @, tab, carriage return first) gets a leading
 * apostrophe (OWASP "CSV injection"; csv-stringify's escape_formulas).
 */
function formatCsv<T>(items: T[], columns: Column<T>[]): string {
  return stringify(
    items.map((item) =>
      columns.map((c) => {
        const value = c.value(item);
        return typeof value === "string" ? escapeControlsKeepingLines(value) : value;
      }),
    ),
    {
      header: true,
      columns: columns.map((c) => c.header),
      cast: { boolean: (value) => String(value) },
      record_delimiter: "unix",
      escape_formulas: true,
    },
  );
}

/**
 * Writes items as they come, page after page: CSV and JSON go out at once (a long walk holds one
 * page in memory, not the whole list); a table needs every row for its widths and is written at
 * the end. The output is the same as formatItems over all the items.
 */
export function createItemWriter<T>(
  format: Format,
  columns: Column<T>[],
  width: MeasureWidth,
  out: { write(text: string): unknown },
) {
  const held: T[] = [];
  let started = false;
  return {
    write(items: T[]) {
      if (format === "table") {
        held.push(...items);
        return;
      }
      if (items.length === 0) return;
      if (format === "csv") {
        const csv = formatCsv(items, columns);
        // The header row once, before the first row.
        out.write(started ? csv.slice(csv.indexOf("\n") + 1) : csv);
      } else {
        const json = items.map((item) => escapeJsonControls(JSON.stringify(item, null, 2)).replace(/\n/g, "\n  "));
        out.write(`${started ? ",\n  " : "[\n  "}${json.join(",\n  ")}`);
      }
      started = true;
    },
    end() {
      if (format === "table" || !started) out.write(formatItems(held, format, columns, width));
      else if (format === "json") out.write("\n]\n");
    },
  };
}

/** Cuts `text` to at most `max` columns, whole graphemes only, with an ellipsis when it was longer. */
function truncate(text: string, max: number, width: MeasureWidth): string {
  if (width(text) <= max) return text;
  let kept = "";
  let used = 0;
  for (const { segment } of new Intl.Segmenter().segment(text)) {
    const w = width(segment);
    if (used + w > max - 1) break;
    kept += segment;
    used += w;
  }
  return `${kept}…`;
}

function formatTable<T>(items: T[], columns: Column<T>[], width: MeasureWidth): string {
  const cell = (value: Cell) =>
    truncate(escapeControls(value === null ? "-" : String(value).replace(/\s+/g, " ")), MAX_CELL_WIDTH, width);
  const rows = [
    columns.map((c) => c.header.toUpperCase()),
    ...items.map((item) => columns.map((c) => cell(c.value(item)))),
  ];
  const widths = columns.map((_, i) => Math.max(...rows.map((row) => width(row[i] ?? ""))));
  return rows
    .map(
      (row) =>
        `${row
          .map((text, i) => text + " ".repeat(Math.max(0, (widths[i] ?? 0) - width(text))))
          .join("  ")
          .trimEnd()}\n`,
    )
    .join("");
}

/** string-width is ESM only: loaded once, by a dynamic import, from this CommonJS build. */
export async function loadMeasureWidth(): Promise<MeasureWidth> {
  const { default: stringWidth } = await import("string-width");
  return (text) => stringWidth(text);
}
