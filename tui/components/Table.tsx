// A small table: columns padded to their widest cell, a box-drawing rule under the header, one
// tone per cell, cells cut with an ellipsis so a row never wraps. Pure function of its props.

import { Box, Text } from "ink";
import { pad, type Tone, textWidth, toneProps, truncate } from "./theme.ts";

export type Cell = string | { text: string; tone?: Tone };

export type Column<R> = {
  header: string;
  cell: (row: R) => Cell;
  align?: "left" | "right";
  /** Widest the column may get. */
  max?: number;
  /** This column gives up width first when the table is too wide (e.g. an error column). */
  shrink?: boolean;
};

export type TableProps<R> = {
  columns: Column<R>[];
  rows: R[];
  color: boolean;
  /** Columns available; the shrinking column is cut to fit. */
  width?: number;
  rowKey: (row: R, index: number) => string;
};

const GAP = " │ ";
const GAP_WIDTH = textWidth(GAP);

const textOf = (c: Cell) => (typeof c === "string" ? c : c.text);
const toneOf = (c: Cell) => (typeof c === "string" ? undefined : c.tone);

/** Column widths: the widest cell (capped at max), the shrinking column cut to fit `width`. */
export function columnWidths<R>(columns: Column<R>[], cells: Cell[][], width?: number): number[] {
  const widths = columns.map((col, i) => {
    const widest = Math.max(
      textWidth(col.header),
      ...cells.map((r) => textWidth(textOf(r[i] ?? ""))),
    );
    return Math.min(widest, col.max ?? Number.POSITIVE_INFINITY);
  });
  if (width === undefined) return widths;
  const total = widths.reduce((a, b) => a + b, 0) + GAP_WIDTH * Math.max(0, widths.length - 1);
  const over = total - width;
  if (over > 0) {
    const i = columns.findIndex((c) => c.shrink);
    if (i >= 0) widths[i] = Math.max(textWidth(columns[i]?.header ?? ""), (widths[i] ?? 0) - over);
  }
  return widths;
}

export function Table<R>({ columns, rows, color, width, rowKey }: TableProps<R>) {
  const cells = rows.map((r) => columns.map((c) => c.cell(r)));
  const widths = columnWidths(columns, cells, width);
  const fit = (text: string, i: number) =>
    pad(truncate(text, widths[i] ?? 0), widths[i] ?? 0, columns[i]?.align);
  const header = columns.map((c, i) => fit(c.header, i)).join(GAP);
  const rule = widths.map((w) => "─".repeat(w)).join("─┼─");
  return (
    <Box flexDirection="column">
      <Text wrap="truncate" {...toneProps(color, "strong")}>
        {header.trimEnd()}
      </Text>
      <Text wrap="truncate" {...toneProps(color, "dim")}>
        {rule}
      </Text>
      {cells.map((row, r) => (
        <Text key={rowKey(rows[r] as R, r)} wrap="truncate">
          {row.map((cell, i) => (
            <Text key={columns[i]?.header ?? i}>
              {i > 0 ? GAP : ""}
              <Text {...toneProps(color, toneOf(cell))}>
                {i === row.length - 1
                  ? truncate(textOf(cell), widths[i] ?? 0)
                  : fit(textOf(cell), i)}
              </Text>
            </Text>
          ))}
        </Text>
      ))}
    </Box>
  );
}
