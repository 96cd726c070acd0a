import { stringify } from "csv-stringify/sync";
import type { Cell, Column } from "./columns";

export const FORMATS = ["table", "json", "csv"] as const;
export type Format = (typeof FORMATS)[number];

const MAX_CELL_WIDTH = 40;

/** The items as the chosen format, ending with a newline (nothing at all for an empty table/CSV body). */
export function formatItems<T>(items: T[], format: Format, columns: Column<T>[]): string {
  switch (format) {
    case "json":
      return `${JSON.stringify(items, null, 2)}\n`;
    case "csv":
      return formatCsv(items, columns);
    case "table":
      return formatTable(
        items,
        columns.filter((c) => c.inTable),
      );
  }
}

/** RFC 4180 CSV with a header row; null is an empty field, booleans are true/false. */
function formatCsv<T>(items: T[], columns: Column<T>[]): string {
  return stringify(
    items.map((item) => columns.map((c) => c.value(item))),
    {
      header: true,
      columns: columns.map((c) => c.header),
      cast: { boolean: (value) => String(value) },
      record_delimiter: "unix",
    },
  );
}

function formatTable<T>(items: T[], columns: Column<T>[]): string {
  const cell = (value: Cell) => {
    const text = value === null ? "-" : String(value).replace(/\s+/g, " ");
    return text.length > MAX_CELL_WIDTH ? `${text.slice(0, MAX_CELL_WIDTH - 1)}…` : text;
  };
  const rows = [
    columns.map((c) => c.header.toUpperCase()),
    ...items.map((item) => columns.map((c) => cell(c.value(item)))),
  ];
  const widths = columns.map((_, i) => Math.max(...rows.map((row) => row[i]?.length ?? 0)));
  return rows
    .map(
      (row) =>
        `${row
          .map((text, i) => text.padEnd(widths[i] ?? 0))
          .join("  ")
          .trimEnd()}\n`,
    )
    .join("");
}
